#!/usr/bin/env bash
# On a GPU machine (the H100 here): builds everything, runs every test and the examples, and
# (with "bench") the speed tests, writing logs and results under $1 (default: out/gpu).
# The GL libraries and build dependencies that image lacks come from .gl/ and .deps/
# (shared/device/prepare-gl.sh and scripts/device/fetch-deps.sh, run beforehand).
# Usage: bash scripts/device/gpu-suite.sh OUT_DIR [tests] [bench-matmul] [bench-memory]
#          [bench-datapath] [bench-ceiling] [bench-variants]
#   bench-datapath  host-array SAXPY round trips, the chunked pipeline, matmul end to end vs
#                   CUDA (pageable and pinned) and OpenBLAS (docs/data-path.md)
#   bench-ceiling   per-stage ALU and texel-fetch ceilings, fragment/TF matmul against them
#   bench-variants  the measurements behind the data path's defaults (engine options, copy and
#                   compute overlap, matmul tiles, split-K and panels)
set -uo pipefail
out=${1:-out/gpu}
shift || true
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
start_clock
# The nn tests read Fashion-MNIST: the image has no dataset package, ./data/fashion-mnist-xz
# travels with the tree (common.sh).
find_nn_data || echo "no Fashion-MNIST: the nn tests will fail (see common.sh, find_nn_data)"
build=/tmp/gpgpu-gpu-build
# The Python module is built for the first python3 on PATH that has NumPy and pytest (the
# image's /usr/bin/python3 has neither; its other Python has both).
python=$(command -v python3)
python_args=()
if "$python" -c "import numpy, pytest" 2>/dev/null; then
  python_args=(-DPython3_EXECUTABLE="$python")
fi
# -Werror is off by default here: the image's GCC 13 warns (-Warray-bounds, a false positive)
# in src/nn/layers.cpp, where Debian 12's GCC 12, which CI builds with, does not.
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR="${GPGPU_WERROR:-OFF}" \
  "${python_args[@]}" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build $build -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
echo "built"
for step in "$@"; do
  case $step in
    tests)
      $build/tools/gpgpu info > "$out/gpgpu-info.txt" 2>&1
      head -12 "$out/gpgpu-info.txt"
      skip=()
      if [ ${#python_args[@]} -eq 0 ]; then
        skip=(-E python)
        echo "no python3 with NumPy and pytest: the Python entries are left out"
      fi
      (cd $build && ctest -j8 --output-on-failure --timeout 300 "${skip[@]}") > "$out/ctest.log" 2>&1
      stamp "ctest done"
      tail -25 "$out/ctest.log"
      for example in $build/examples/*; do
        [ -x "$example" ] && [ -f "$example" ] || continue
        echo "-- $(basename "$example")"
        "$example"
      done > "$out/examples.log" 2>&1
      echo "examples: $(grep -c '^-- ' "$out/examples.log") run"
      ;;
    bench-matmul)
      $build/tools/gpgpu bench matmul --out "$out" --no-charts > "$out/bench-matmul.log" 2>&1
      tail -60 "$out/bench-matmul.log"
      ;;
    bench-memory)
      $build/tools/gpgpu bench memory --out "$out" > "$out/bench-memory.log" 2>&1
      tail -60 "$out/bench-memory.log"
      ;;
    bench-datapath)
      $build/tools/gpgpu bench datapath --out "$out" --repeats 7 --warmup 2 \
        > "$out/bench-datapath.log" 2>&1
      tail -60 "$out/bench-datapath.log"
      ;;
    bench-ceiling)
      $build/tools/gpgpu bench ceiling --out "$out" > "$out/bench-ceiling.log" 2>&1
      tail -30 "$out/bench-ceiling.log"
      ;;
    bench-variants)
      $build/tools/gpgpu bench datapath --which variants --out "$out" --repeats 5 --warmup 1 \
        > "$out/bench-variants.log" 2>&1
      tail -80 "$out/bench-variants.log"
      ;;
  esac
done
