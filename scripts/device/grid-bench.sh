#!/usr/bin/env bash
# The earth grid on the GPU machine, in one call of at most 10 minutes (the figures of
# docs/earth.md, "The grid build"):
#   1. gpgpu bench grid at levels 4-9: cold builds with the springs on the CPU threads and on
#      the GPU, Auto (first with its timed trial, then following its timing), warm reads from
#      the disk cache, every build's stage table, the statistics and point differences that
#      show the grids agree, and peak memory;
#   2. levels 10 and 11 (GPU cold build, warm read, peak memory), each in its own process;
#   3. `gpgpu earth --case 2 --level 8 --days 5` twice with one cache: the first process
#      builds the grid, the second reads it (its wall time is a target: <= 3 s);
#   4. case 2 at levels 4-7 on grids built with the springs on the GPU: the height l2 errors
#      (today's: 9.04e-4, 2.25e-4, 5.59e-5, 1.40e-5) and their order.
#
#   bash scripts/device/grid-bench.sh OUT_DIR [BUILD_DIR]
#
# Environment: GRID_BUILD=0 uses an existing BUILD_DIR/tools/gpgpu (built with the
# benchmarks); GRID_LEVELS (default 4,5,6,7,8,9); GRID_BIG_LEVELS (default "10 11");
# GRID_RUN_LEVEL (default 8) of part 3; GRID_CASE2_LEVELS (default "4 5 6 7") of part 4; GRID_DEADLINE seconds after which the remaining
# parts are skipped (default 540). On llvmpipe, a dry run:
#   GRID_BUILD=0 GRID_LEVELS=3,4 GRID_BIG_LEVELS=5 GRID_RUN_LEVEL=3 GRID_CASE2_LEVELS="3 4" \
#     bash scripts/device/grid-bench.sh /tmp/gb build/dev
# The GL libraries come from .gl/ (shared/device/prepare-gl.sh), as for all-suite.sh.
# Writes OUT_DIR/summary.txt and OUT_DIR/grid-results.tar.gz (see `pack` below).
set -uo pipefail
dest=${1:?usage: grid-bench.sh OUT_DIR [BUILD_DIR]}
build=${2:-/tmp/gpgpu-grid}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
# Everything is written to a work folder and packed into OUT_DIR at the end (a device call
# returns 8 files at most): OUT_DIR/summary.txt (the stages and the benchmark tables) and
# OUT_DIR/grid-results.tar.gz (every log and JSON file).
out=${GRID_WORK:-/tmp/grid-bench-work}
rm -rf "$out"
mkdir -p "$out"
pack() {
  { cat "$out/stages.log"; for f in "$out"/bench-grid*.log; do
      [ -f "$f" ] && { echo "== $(basename "$f")"; sed -n '/^Median wall/,$p' "$f"; }; done
  } > "$dest/summary.txt" 2>/dev/null
  tar -czf "$dest/grid-results.tar.gz" -C "$out" . 2>/dev/null
}
trap pack EXIT
source scripts/device/common.sh
device_preludes > /dev/null
start_clock
stamp_log=$out/stages.log
left() { echo $((${GRID_DEADLINE:-540} - ($(date +%s) - t0))); }
bounded() {  # bounded SECONDS command...: at most SECONDS, never past the deadline
  local cap=$1 l
  shift
  l=$(left)
  [ "$l" -lt 20 ] && { stamp "skipped (deadline): $*"; return 124; }
  [ "$l" -lt "$cap" ] && cap=$l
  timeout "$cap" "$@"
}

if [ "${GRID_BUILD:-1}" != 0 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
    -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=ON -DGPGPU_CUDA=OFF \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  bounded 300 cmake --build "$build" -j"$(nproc)" --target gpgpu_cli > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
  stamp "built"
fi
gpgpu=$build/tools/gpgpu
"$gpgpu" info > "$out/device.txt" 2>&1
nproc > "$out/cpus.txt"
free -g >> "$out/cpus.txt"

bounded 300 "$gpgpu" bench grid --levels "${GRID_LEVELS:-4,5,6,7,8,9}" --repeats 3 --verbose \
  --out "$out/levels" > "$out/bench-grid.log" 2>&1
stamp "bench grid: rc $?"

for level in ${GRID_BIG_LEVELS:-10 11}; do
  bounded 240 "$gpgpu" bench grid --levels "$level" --cpu-max-level 9 --verbose \
    --out "$out/L$level" > "$out/bench-grid-L$level.log" 2>&1
  stamp "bench grid level $level: rc $?"
done

# A user's two runs: the first builds the grid (and compiles), the second reads both.
export GPGPU_CACHE_DIR=$out/run-cache
run_level=${GRID_RUN_LEVEL:-8}
for run in first second; do
  start=$(date +%s.%N)
  bounded 120 "$gpgpu" earth --case 2 --level "$run_level" --days 5 --no-pictures --verbose \
    --json "$out/case2-L$run_level-$run.json" > "$out/case2-L$run_level-$run.log" 2>&1
  rc=$?
  stamp "case 2 level $run_level, $run process: rc $rc, wall $(awk "BEGIN {print $(date +%s.%N) - $start}") s"
done
rm -rf "$GPGPU_CACHE_DIR"

export GPGPU_CACHE_DIR=$out/gpu-grids
for level in ${GRID_CASE2_LEVELS:-4 5 6 7}; do
  bounded 60 "$gpgpu" earth --case 2 --level "$level" --no-pictures --grid-device gpu \
    --json "$out/case2-gpu-grid-L$level.json" > "$out/case2-gpu-grid-L$level.log" 2>&1
  stamp "case 2 level $level on a GPU-built grid: $(grep -o 'l2 [0-9.e+-]*' "$out/case2-gpu-grid-L$level.log")"
done
rm -rf "$GPGPU_CACHE_DIR"
