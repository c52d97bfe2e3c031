#!/usr/bin/env bash
# Every part's GPU measurements from one build, in stages that fit device calls of 10 minutes:
# the build and the tests in one call, the benchmarks in the next ones, each stage bounded so
# that what ran still comes back under OUT_DIR.
#
#   bash scripts/device/all-suite.sh OUT_DIR STAGE...
#
# Stages (in the order given):
#   build       configure and build everything (Release, CUDA/CUB references) in $BUILD; no
#               -Werror: the image's GCC 13 gives a false -Warray-bounds at -O3 in libstdc++
#   tests       ctest on the GPU, `gpgpu info`, every example
#   matmul      gpgpu bench matmul (every method, cuBLAS, OpenBLAS) at 1024..8192
#   datapath    gpgpu bench datapath (SAXPY round trips, pipeline, matmul end to end vs CUDA)
#   ceiling     gpgpu bench ceiling (per-stage ALU and texel-fetch ceilings)
#   primitives  gpgpu bench primitives against CUB and the CPU
#   nn          scripts/device/nn-bench.sh on this build (PyTorch vs gpgpu, accuracy runs)
#   earth       scripts/device/earth-bench.sh on this build
#   grid        scripts/device/grid-bench.sh on this build (the earth grid: GPU vs CPU builds,
#               warm reads, levels 10-11, a second process reading the grid)
#   python      scripts/device/python-bench.sh (its own small build of the module)
#   transfers   scripts/device/transfers-bench.sh on this build (SAXPY round trips 2^24..2^26
#               vs CUDA pinned, the overlap pipeline with copy lanes off/on, matmul e2e)
# Environment: BUILD (default /tmp/gpgpu-all), DEADLINE (seconds for the whole call, default
# 570): a stage gets what is left, so the call returns before the device's limit.
# The GL libraries and build dependencies the image lacks come from .gl/ and .deps/
# (shared/device/prepare-gl.sh and scripts/device/fetch-deps.sh, run beforehand);
# Fashion-MNIST from data/fashion-mnist when the image has none.
set -uo pipefail
out=${1:?usage: all-suite.sh OUT_DIR STAGE...}
shift
source scripts/device/stages.sh
build=${BUILD:-/tmp/gpgpu-all}
gpgpu=$build/tools/gpgpu
[ -d data/fashion-mnist ] && export GPGPU_NN_DATA=${GPGPU_NN_DATA:-$PWD/data/fashion-mnist}

for stage in "$@"; do
  case $stage in
    build)
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
        -DPython3_EXECUTABLE="$(command -v python3)" \
        > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
      timeout "$(budget 400)" cmake --build "$build" -j"$(nproc)" > "$out/build.log" 2>&1 ||
        { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv \
        > "$out/nvidia-smi.txt" 2>&1
      stamp "built"
      ;;
    tests)
      $gpgpu info > "$out/gpgpu-info.txt" 2>&1
      (cd "$build" && timeout "$(budget 300)" ctest -j8 --output-on-failure --timeout 240) \
        > "$out/ctest.log" 2>&1
      stamp "ctest: $(grep -E 'tests passed' "$out/ctest.log")"
      grep -E "\*\*\*|Failed  " "$out/ctest.log" | head -20
      for example in "$build"/examples/*; do
        [ -x "$example" ] && [ -f "$example" ] || continue
        echo "-- $(basename "$example")"
        timeout 60 "$example" || echo "exit code $?"
      done > "$out/examples.log" 2>&1
      stamp "examples: $(grep -c '^-- ' "$out/examples.log") run, $(grep -c '^exit code' "$out/examples.log") failed"
      ;;
    matmul)
      timeout "$(budget 200)" $gpgpu bench matmul --sizes 1024 2048 4096 8192 --repeats 5 \
        --warmup 2 --out "$out" --no-charts > "$out/bench-matmul.log" 2>&1
      stamp "matmul: rc $?"
      ;;
    datapath)
      timeout "$(budget 200)" $gpgpu bench datapath --repeats 7 --warmup 2 --out "$out" \
        > "$out/bench-datapath.log" 2>&1
      stamp "datapath: rc $?"
      ;;
    ceiling)
      timeout "$(budget 90)" $gpgpu bench ceiling --out "$out" > "$out/bench-ceiling.log" 2>&1
      stamp "ceiling: rc $?"
      ;;
    primitives)
      timeout "$(budget 240)" $gpgpu bench primitives --log2-sizes 16,20,24,26,28 --repeats 10 \
        --no-charts --out "$out" > "$out/bench-primitives.log" 2>&1
      stamp "primitives: rc $?"
      ;;
    nn)
      GPGPU_BUILD_DIR=$build TRAIN_TIMEOUT=${TRAIN_TIMEOUT:-120} \
        timeout "$(budget 500)" bash scripts/device/nn-bench.sh "$out/nn" > "$out/nn-bench.log" 2>&1
      stamp "nn: rc $?"
      ;;
    earth)
      EARTH_BUILD=0 EARTH_DEADLINE=$(($(budget 400) - 40)) EARTH_PACK_DIR="$out/earth-pack" \
        timeout "$(budget 400)" bash scripts/device/earth-bench.sh "$out/earth" "$build" \
        > "$out/earth-bench.log" 2>&1
      stamp "earth: rc $?"
      ;;
    grid)
      GRID_BUILD=0 GRID_DEADLINE=$(($(budget 540) - 20)) timeout "$(budget 540)" \
        bash scripts/device/grid-bench.sh "$out/grid" "$build" > "$out/grid-bench.log" 2>&1
      stamp "grid: rc $?"
      ;;
    transfers)
      DEADLINE=$(budget 160) bash scripts/device/transfers-bench.sh "$out/transfers" "$build" \
        > "$out/transfers-bench.log" 2>&1
      stamp "transfers: rc $?"
      ;;
    python)
      timeout "$(budget 300)" bash scripts/device/python-bench.sh "$out/python" \
        > "$out/python-bench.log" 2>&1
      stamp "python: rc $?"
      ;;
    *)
      stamp "unknown stage $stage"
      ;;
  esac
done
