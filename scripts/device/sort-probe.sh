#!/usr/bin/env bash
# On a GPU machine: Onesweep's tile shapes against CUB, its tests, and the dispatch floor,
# measured in one call (results under OUT; docs/primitives.md and docs/sequences.md cite them):
#  1. builds gpgpu_cli (CUDA and CUB references) and the primitives tests (Release);
#  2. the primitives tests that run Onesweep and its tuning on this GPU (tests.log);
#  3. gpgpu bench primitives --tuning with Onesweep at each LOCALxKEYS in $SHAPES (sort) and
#     $PAIR_SHAPES (sort_pairs) at each of $PROBE_SIZES (sort-shapes.log: the shape and its
#     row of the bench's table, CUB's beside it, every result checked);
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
cuda_build "$build" "$out" gpgpu_cli $tests
stamp built
for t in $tests; do
  timeout 120 "$build/tests/$t" > "$out/$t.log" 2>&1
  echo "$t: exit $? $(tail -1 "$out/$t.log")" | tee -a "$out/tests.log"
done
stamp tests
# shape PRIMITIVE LOG2N LOCALxKEYS: the bench's row for one Onesweep shape.
shape() {
  local tuning=subgroups=1,sort_serial=0,sort_onesweep=1,onesweep_local=${3%x*},onesweep_keys=${3#*x}
  echo "$1 2^$2 $3: $(timeout 90 "$build/tools/gpgpu" bench primitives --primitives "$1" \
    --log2-sizes "$2" --no-cpu --no-charts --tuning "$tuning" --out "$out/shapes" 2>&1 |
    grep '^| 2^')" | tee -a "$out/sort-shapes.log"
}
for lg in ${PROBE_SIZES:-24}; do
  for s in ${SHAPES:-256x16 512x11}; do shape sort "$lg" "$s"; done
  for s in ${PAIR_SHAPES:-}; do shape sort_pairs "$lg" "$s"; done
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
