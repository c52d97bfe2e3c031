#!/usr/bin/env bash
# One device call that measures the data path's variants and figures (docs/data-path.md):
# builds only the CLI and the data-path tests, checks them on the GPU, runs the variants,
# the data-path benchmarks and the stage ceilings, and packs every log into OUT/results.tgz.
# Each step has its own time limit so that one slow step cannot take the others down.
# Usage: bash scripts/device/datapath-probe.sh OUT [steps...]   (default: all steps)
set -uo pipefail
out=${1:?OUT directory}
shift || true
steps=${*:-"tests variants datapath ceiling"}
mkdir -p "$out/r"
r=$out/r
source scripts/device/common.sh
device_preludes
build=/tmp/gpgpu-datapath
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$r/steps.log"; }
stamp "configure"
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_BUILD_EXAMPLES=OFF \
  > "$r/configure.log" 2>&1 || { tail -30 "$r/configure.log"; }
tests="datapath_test matmul_auto_test compute_kernel_test transform_feedback_test fragment_kernel_test texture_test memory_test three_paths_test"
stamp "build"
cmake --build $build -j"$(nproc)" --target gpgpu_cli $tests -- -k 0 > "$r/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$r/build.log" | head -40; }
stamp "built"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$r/nvidia-smi.txt" 2>&1
nproc > "$r/nproc.txt"
$build/tools/gpgpu info > "$r/gpgpu-info.txt" 2>&1
for step in $steps; do
  case $step in
    tests)
      for t in $tests; do
        timeout 120 $build/tests/$t --gtest_color=no > "$r/test-$t.log" 2>&1
        stamp "$t: rc $? $(grep -E '^\[  (PASSED|FAILED)' "$r/test-$t.log" | tr '\n' ' ')"
      done
      ;;
    variants)
      timeout 170 $build/tools/gpgpu bench datapath --which variants --repeats 5 --warmup 1 \
        --out "$r" > "$r/bench-variants.log" 2>&1
      stamp "variants: rc $?"
      ;;
    datapath)
      timeout 150 $build/tools/gpgpu bench datapath --repeats 7 --warmup 2 --out "$r" \
        > "$r/bench-datapath.log" 2>&1
      stamp "datapath: rc $?"
      ;;
    ceiling)
      timeout 60 $build/tools/gpgpu bench ceiling --out "$r" > "$r/bench-ceiling.log" 2>&1
      stamp "ceiling: rc $?"
      ;;
  esac
done
tar -C "$out" -czf "$out/results.tgz" r
cat "$r/steps.log"
tail -n 45 "$r/bench-datapath.log" 2>/dev/null
