#!/usr/bin/env bash
# On a GPU machine: the subgroup scan and compaction with the fence-free look-back words
# (look_back_glsl.cpp), checked and measured against CUB in one call (results under OUT):
#  1. builds gpgpu_cli (CUDA and CUB references) and the primitives tests (Release);
#  2. the primitives tests that run the look-back on this GPU (tests.log): its reader and
#     epoch wrap, the scans and compactions with GPGPU_PRIMITIVES_SUBGROUPS=1 (the subgroup
#     kernels), and the subgroup suite;
#  3. gpgpu bench primitives scan at 2^24, 2^26, 2^28 with CUB, same run
#     (bench-primitives.log: compare its CUB ratios with main's from the same script there).
# About 5 minutes on an H200. Usage: bash scripts/device/scan-look-back.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/scan-look-back}
build=${2:-/tmp/bx}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
tests=${TESTS-"primitives_look_back_test primitives_scan_test primitives_compaction_test primitives_subgroup_test"}
cuda_build "$build" "$out" gpgpu_cli $tests
stamp built
git rev-parse HEAD > "$out/commit.txt" 2>/dev/null
for t in $tests; do
  GPGPU_PRIMITIVES_SUBGROUPS=1 timeout 180 "$build/tests/$t" > "$out/$t.log" 2>&1
  echo "$t: exit $? $(tail -1 "$out/$t.log")" | tee -a "$out/tests.log"
done
stamp tests
timeout 300 "$build/tools/gpgpu" bench primitives --primitives scan --log2-sizes 24,26,28 \
  --repeats 5 --paths both --no-cpu --no-charts --out "$out/p" > "$out/bench-primitives.log" 2>&1
echo "bench exit $?"
grep -iE "scan|cub" "$out/bench-primitives.log" | tail -30
stamp done
