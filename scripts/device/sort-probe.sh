#!/usr/bin/env bash
# On a GPU machine: Onesweep's tile shapes against CUB, its tests, and the dispatch floor,
# measured in one call (results under OUT; docs/primitives.md and docs/sequences.md cite them):
#  1. builds gpgpu_cli (CUDA and CUB references), bench/probes/sort_probe and the primitives
#     tests (Release);
#  2. the primitives tests that run Onesweep and its tuning on this GPU (tests.log);
#  3. sort_probe LOG2N 1 LOCAL KEYS [PAIRS] for each LOCALxKEYS in $SHAPES (and with values
#     for each in $PAIR_SHAPES) at each of $PROBE_SIZES (sort-shapes.log: GPU median ms,
#     every result checked);
#  4. gpgpu bench primitives sort and sort_pairs at 2^24, 2^26, 2^28 with CUB, same run
#     (bench-primitives.log);
#  5. gpgpu bench dispatch twice (bench-dispatch.txt), with the in-place chain: the floor of a
#     dependent chain through GL (glMemoryBarrier and glDispatchCompute only).
# About 6 minutes on an H200. Usage: bash scripts/device/sort-probe.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/sort-probe}
build=${2:-/tmp/bx}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
tests=${TESTS-"primitives_subgroup_test primitives_sort_test primitives_planner_test tuning_cache_test"}
cuda_build "$build" "$out" gpgpu_cli sort_probe $tests
stamp built
for t in $tests; do
  timeout 120 "$build/tests/$t" > "$out/$t.log" 2>&1
  echo "$t: exit $? $(tail -1 "$out/$t.log")" | tee -a "$out/tests.log"
done
stamp tests
for lg in ${PROBE_SIZES:-24}; do
  for shape in ${SHAPES:-256x16 512x11}; do
    timeout 90 "$build/bench/sort_probe" $lg 1 ${shape/x/ } 2>&1 | tail -1 | tee -a "$out/sort-shapes.log"
  done
  for shape in ${PAIR_SHAPES:-}; do
    timeout 90 "$build/bench/sort_probe" $lg 1 ${shape/x/ } 1 2>&1 | tail -1 |
      tee -a "$out/sort-shapes.log"
  done
done
stamp shapes
[ "${BENCH:-1}" = 1 ] && timeout 300 "$build/tools/gpgpu" bench primitives --primitives sort sort_pairs \
  --log2-sizes 24,26,28 --repeats 5 --paths both --no-cpu --no-charts --out "$out/p" \
  > "$out/bench-primitives.log" 2>&1
grep -iE "sort|cub" "$out/bench-primitives.log" | tail -30
stamp "bench primitives"
for r in $(seq "${DISPATCH_RUNS:-2}"); do
  timeout 60 "$build/tools/gpgpu" bench dispatch --out "$out/d$r" 2>/dev/null |
    tee -a "$out/bench-dispatch.txt"
done
stamp done
