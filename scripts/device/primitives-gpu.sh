#!/usr/bin/env bash
# On a GPU machine (the H100): builds the CLI and the primitives' tests, runs
# `gpgpu bench primitives` (against CUB) and the primitives' tests, writing logs and
# results under $1. Each stage has a time limit so that what ran still comes back.
# Usage: [SWEEP=1] [DEADLINE=400] bash scripts/device/primitives-gpu.sh OUT_DIR [BENCH_ARGS...]
# SWEEP=1 first times kernel shapes (bench --sweep); every stage ends by DEADLINE seconds.
set -uo pipefail
out=${1:-out/gpu-primitives}
shift || true
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
build=/tmp/gpgpu-primitives-build
start_clock
# Seconds a stage may take: its own cap, or what is left before the deadline.
budget() {
  local left=$(( ${DEADLINE:-400} - ($(date +%s) - t0) - 5 ))
  [ "$left" -lt "$1" ] && echo $(( left > 1 ? left : 1 )) || echo "$1"
}
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
tests="primitives_reduce_test primitives_argextreme_test primitives_scan_test primitives_sort_test
  primitives_histogram_test primitives_compaction_test primitives_segmented_test
  primitives_variants_test primitives_cli_test buffer_texels_test"
# CUB first: a toolkit whose CUB does not build must not cost the rest of the run.
if ! cmake --build $build -j"$(nproc)" --target gpgpu_cuda_primitives > "$out/build-cub.log" 2>&1; then
  stamp "CUB reference did not build (build-cub.log); going on without it"
  grep -E "error" "$out/build-cub.log" | head -20
  cmake -S . -B $build -DGPGPU_BENCH_CUB=OFF >> "$out/configure.log" 2>&1
fi
# shellcheck disable=SC2086
cmake --build $build -j"$(nproc)" --target gpgpu_cli $tests > "$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
stamp "built"
$build/tools/gpgpu info > "$out/gpgpu-info.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/nvidia-smi.txt" 2>&1
if [ "${SWEEP:-0}" = 1 ]; then
  timeout "$(budget 110)" $build/tools/gpgpu bench primitives --primitives copy --log2-sizes 26 --sweep \
    --no-charts --out "$out/sweep" > "$out/sweep.log" 2> "$out/sweep.err"
  stamp "sweep done (status $?)"
  grep "sweep" "$out/sweep.err" | sed 's/^ *//'
fi
timeout "$(budget 170)" $build/tools/gpgpu bench primitives --out "$out" "$@" > "$out/bench.log" 2> "$out/bench.err"
stamp "bench done (status $?)"
grep -A12 "gpgpu / CUB" "$out/bench.log"
(cd $build && timeout "$(budget 200)" ctest -R "primitives|buffer_texels" -j6 --output-on-failure --timeout 190) > "$out/ctest.log" 2>&1
stamp "tests done (status $?)"
tail -15 "$out/ctest.log"
