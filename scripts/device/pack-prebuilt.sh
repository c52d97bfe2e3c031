#!/usr/bin/env bash
# Here (Debian 12, nvcc present): puts the Release binaries of BUILD (default build/dev:
# tools/gpgpu, tools/gpgpu-mpi and tools/gpgpu-mpi-rates) and the few libraries the GPU image may lack (TBB,
# gfortran, quadmath, gomp) into build/device/, and Fashion-MNIST into data/, so that a device
# call can carry them (`carry: [".gl", ".deps", "build/device", "data"]`, ~45 MB) and spend
# no device time compiling. There, `source scripts/device/prebuilt.sh` checks that they load
# and builds the same targets when they do not.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
build=${1:-build/dev}
rm -rf build/device
mkdir -p build/device/tools build/device/lib
for tool in gpgpu gpgpu-mpi gpgpu-mpi-rates; do
  [ -x "$build/tools/$tool" ] && cp "$build/tools/$tool" build/device/tools/
done
# GoogleTest binaries named in PREBUILT_TESTS (e.g. "overlap_test datapath_test"): the
# measure-all.sh stage gltests runs them on the GPU.
mkdir -p build/device/tests
for test in ${PREBUILT_TESTS:-}; do cp "$build/tests/$test" build/device/tests/; done
for lib in libtbb.so.12 libgfortran.so.5 libquadmath.so.0 libgomp.so.1; do
  cp -L "/lib/x86_64-linux-gnu/$lib" build/device/lib/
done
if [ ! -d data/fashion-mnist ] && [ -d /usr/share/datasets/fashion-mnist ]; then
  mkdir -p data && cp -r /usr/share/datasets/fashion-mnist data/
fi
du -sh build/device data 2>/dev/null
