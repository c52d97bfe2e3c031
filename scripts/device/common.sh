# Sourced by the device scripts (run from the repository root) for what they all begin with:
#   device_setup     makes $out (set by the script) and makes it absolute, then
#                    device_preludes and start_clock: what every device script begins with
#   device_preludes  loads .gl/prelude.sh and .deps/prelude.sh where present: the GL libraries
#                    and build dependencies the image lacks (shared/device/prepare-gl.sh,
#                    scripts/device/fetch-deps.sh); `device_preludes > /dev/null` quietly
#   start_clock      sets t0, stamp's zero, to now
#   stamp MSG        "[N s] MSG" on stdout, N the seconds since start_clock; also appended to
#                    $stamp_log where that is set
#   find_nn_data     exports GPGPU_NN_DATA as the first directory of $GPGPU_NN_DATA,
#                    /usr/share/datasets/fashion-mnist and ./data/fashion-mnist (Fashion-MNIST),
#                    else of ./data/fashion-mnist-xz unpacked into /tmp/fashion-mnist (the
#                    images xz-compressed: 4 MiB less than gzip, which lets the dataset travel
#                    beside .zink under the device tool's 64 MiB); non-zero, GPGPU_NN_DATA
#                    left as it was, when none is one
#   require_nn_data  find_nn_data, else exits the script with a message
#   configure_release BUILD OUT [CUDA]  configures BUILD (Release, tests and benches; with the
#                    CUDA and CUB references when CUDA is ON, the default OFF), the log in
#                    OUT/configure.log; exits the script with its tail when that fails
#   build_targets BUILD OUT TARGET...  builds the targets, the log in OUT/build.log; exits
#                    the script with the errors when that fails
#   cuda_build BUILD OUT TARGET...  configure_release with CUDA, then build_targets
device_preludes() {
  if [ -f .gl/prelude.sh ]; then source .gl/prelude.sh; fi
  if [ -f .deps/prelude.sh ]; then source .deps/prelude.sh; fi
}
start_clock() { t0=$(date +%s); }
device_setup() {
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  device_preludes
  start_clock
}
stamp() {
  local line="[$(($(date +%s) - t0)) s] $*"
  if [ -n "${stamp_log:-}" ]; then echo "$line" | tee -a "$stamp_log"; else echo "$line"; fi
}
find_nn_data() {
  local candidate
  for candidate in "${GPGPU_NN_DATA:-}" /usr/share/datasets/fashion-mnist "$PWD/data/fashion-mnist"; do
    if [ -n "$candidate" ] && [ -d "$candidate" ]; then
      export GPGPU_NN_DATA=$candidate
      return 0
    fi
  done
  unpack_nn_data_xz && export GPGPU_NN_DATA=/tmp/fashion-mnist
}
unpack_nn_data_xz() {
  local packed=$PWD/data/fashion-mnist-xz file
  [ -d "$packed" ] || return 1
  mkdir -p /tmp/fashion-mnist
  for file in "$packed"/*; do
    case $file in
      *.xz) [ -f "/tmp/fashion-mnist/$(basename "$file" .xz)" ] ||
        xz -dc "$file" > "/tmp/fashion-mnist/$(basename "$file" .xz)" || return 1 ;;
      *) cp "$file" /tmp/fashion-mnist/ ;;
    esac
  done
}
require_nn_data() {
  find_nn_data || { echo "no Fashion-MNIST directory (set GPGPU_NN_DATA)"; exit 1; }
}
configure_release() {
  local cuda=${3:-OFF}
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA="$cuda" \
    -DGPGPU_BENCH_CUB="$cuda" -DGPGPU_BUILD_TESTS=ON -DGPGPU_BUILD_EXAMPLES=OFF \
    -DGPGPU_BUILD_BENCH=ON > "$2/configure.log" 2>&1 || { tail -30 "$2/configure.log"; exit 1; }
}
build_targets() {
  local build=$1 out=$2
  shift 2
  cmake --build "$build" -j"$(nproc)" --target "$@" > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
}
cuda_build() {
  configure_release "$1" "$2" ON
  build_targets "$@"
}
