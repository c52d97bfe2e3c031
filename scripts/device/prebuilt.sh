# Sourced on the GPU machine after .gl/ and .deps/ preludes: exports BUILD, the folder whose
# tools/gpgpu (and tools/gpgpu-mpi) the device scripts run. The binaries packed here by
# scripts/device/pack-prebuilt.sh are used when every library they need resolves (their
# fallback libraries from build/device/lib last in the search path); otherwise the CLI and
# gpgpu-mpi are built in /tmp/gpgpu-device (about 3-5 minutes on 16 cores).
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/build/device/lib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
[ -d data/fashion-mnist ] && export GPGPU_NN_DATA=${GPGPU_NN_DATA:-$PWD/data/fashion-mnist}
prebuilt_ok() {
  local tool
  for tool in build/device/tools/gpgpu build/device/tools/gpgpu-mpi; do
    [ -x "$tool" ] || return 1
    if ldd "$tool" | grep -q "not found"; then ldd "$tool" | grep "not found"; return 1; fi
  done
  build/device/tools/gpgpu --version > /dev/null
}
if prebuilt_ok; then
  export BUILD=$PWD/build/device
else
  echo "prebuilt binaries unusable here: building gpgpu and gpgpu-mpi"
  export BUILD=/tmp/gpgpu-device
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
    -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF > /tmp/prebuilt-configure.log 2>&1 &&
    cmake --build "$BUILD" -j"$(nproc)" --target gpgpu_cli gpgpu_mpi_cli gpgpu_mpi_rates > /tmp/prebuilt-build.log 2>&1 ||
    { tail -30 /tmp/prebuilt-configure.log /tmp/prebuilt-build.log; }
fi
echo "BUILD=$BUILD"
