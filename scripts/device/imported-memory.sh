#!/usr/bin/env bash
# On a GPU machine: Buffers over memory imported from Vulkan (docs/memory.md, "Large buffers"),
# their tests and their speed, in one call (results under OUT):
#  1. builds gpgpu_cli (CUDA and CUB references), memory_test and the primitives tests;
#  2. the tests, with the default threshold and with every Buffer of 4 KiB or more imported
#     (GPGPU_IMPORTED_BUFFER_BYTES=4096), so that every primitive runs over imported memory;
#  3. gpgpu bench primitives (scan, sort, sort_pairs, reduce, histogram, copy; 2^24, 2^26, 2^28; CUB
#     in the same run) with imports off (GPGPU_IMPORTED_BUFFER_BYTES=0) and on (the default),
#     twice each, alternating.
# Usage: bash scripts/device/imported-memory.sh OUT [BUILD_DIR]
# Environment: TESTS (the test executables), ROUNDS (2), PRIMITIVES and SIZES (the bench's
# --primitives and --log2-sizes); all of it takes over 10 minutes on an H200, more than one
# device call: docs/results/h200/2026-12-01-imported-memory/COMMAND ran a shorter set.
set -uo pipefail
out=${1:-out/imported-memory}
build=${2:-/tmp/bx}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
tests=${TESTS-"memory_test primitives_scan_test primitives_sort_test primitives_reduce_test primitives_histogram_test primitives_compaction_test buffer_texels_test"}
cuda_build "$build" "$out" gpgpu_cli $tests
stamp built
for threshold in default 4096; do
  for t in $tests; do
    if [ $threshold = default ]; then env=(); else env=(GPGPU_IMPORTED_BUFFER_BYTES=$threshold); fi
    env "${env[@]}" timeout 240 "$build/tests/$t" > "$out/$t-$threshold.log" 2>&1
    echo "$t ($threshold): exit $? $(tail -1 "$out/$t-$threshold.log")" | tee -a "$out/tests.log"
  done
done
stamp tests
for round in $(seq "${ROUNDS:-2}"); do
  for imports in off on; do
    if [ $imports = off ]; then env=(GPGPU_IMPORTED_BUFFER_BYTES=0); else env=(); fi
    env "${env[@]}" timeout 400 "$build/tools/gpgpu" bench primitives \
      --primitives ${PRIMITIVES:-scan sort sort_pairs reduce histogram copy} \
      --log2-sizes ${SIZES:-24,26,28} --repeats 5 \
      --no-cpu --no-charts --out "$out/p-$imports-$round" > "$out/bench-$imports-$round.log" 2>&1
    echo "bench imports $imports, round $round: exit $?"
    grep -A12 "/ CUB" "$out/bench-$imports-$round.log" | head -14
    stamp "bench $imports $round"
  done
done
