#!/usr/bin/env bash
# The earth model's measurements in one go: build the CLI, time the steps per level, run the
# four Williamson test cases at every level, compare cases 5 and 6 with the finest run, and
# draw the pictures. Writes tables (JSON), logs and PNGs under OUT_DIR.
#
#   scripts/device/earth-bench.sh OUT_DIR [BUILD_DIR]
#
# Sized for an H100 (about 8 minutes with the build); on llvmpipe set smaller levels:
#   EARTH_LEVELS="4 5 6" EARTH_BENCH_LEVELS=4,5,6 EARTH_PICTURE_LEVEL=5 scripts/device/earth-bench.sh out
# Environment:
#   EARTH_LEVELS          levels of the convergence runs (default "4 5 6 7 8"); the last is
#                         the reference for cases 5 and 6
#   EARTH_BENCH_LEVELS    levels timed by `gpgpu earth bench` (default 6,7,8)
#   EARTH_BENCH_VARIANTS  kernel variants timed (default default,preload,wg64,wg256)
#   EARTH_PICTURE_LEVEL   level of the runs that draw pictures and animations (default 6)
#   EARTH_FRAMES          animation frames (default 48)
#   GPGPU_DEVICE          as everywhere (default: the first GPU)
#   EARTH_RUN_TIMEOUT     seconds before one run is abandoned (default 300)
#   EARTH_BUILD=0         use an existing BUILD_DIR/tools/gpgpu
#   EARTH_DEADLINE        seconds after which remaining runs are skipped (default 430), so
#                         that packing still happens inside a device call's limit
#   EARTH_SECTIONS        which parts to run (default "bench case2 case1 case5 case6 extra grid")
#   EARTH_PACK_DIR        if set, the results are packed there as at most 8 files of < 16 MiB
#                         (results.tar.gz, frames_*.tar, tables.md): what a device call returns
set -euo pipefail
started=$(date +%s)
deadline=${EARTH_DEADLINE:-430}
late() { [ $(( $(date +%s) - started )) -gt "$deadline" ]; }
sections=" ${EARTH_SECTIONS:-bench case2 case1 case5 case6 extra grid} "
wanted() { [[ "$sections" == *" $1 "* ]]; }

out=${1:?usage: earth-bench.sh OUT_DIR [BUILD_DIR]}
build=${2:-/tmp/b-earth}
levels=${EARTH_LEVELS:-"4 5 6 7 8"}
bench_levels=${EARTH_BENCH_LEVELS:-6,7,8}
picture_level=${EARTH_PICTURE_LEVEL:-6}
frames=${EARTH_FRAMES:-48}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/earth-bench.log"
exec > >(tee -a "$log") 2>&1
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }

if [ "${EARTH_BUILD:-1}" != 0 ]; then
  stamp "build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_BUILD_TESTS=OFF \
        -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=OFF > "$out/cmake.log"
  cmake --build "$build" -j"$(nproc)" --target gpgpu_cli > "$out/build.log"
fi
gpgpu="$build/tools/gpgpu"
"$gpgpu" info > "$out/device.txt" || true
finest=${levels##* }

if wanted bench; then
  stamp "step timing at levels $bench_levels"
  timeout 240 "$gpgpu" earth bench --levels "$bench_levels" \
      --variants "${EARTH_BENCH_VARIANTS:-default,preload,wg64,wg256}" --json "$out/bench.json" \
      | tee "$out/bench.txt" || echo "bench failed or timed out"
fi

# Runs one case at one level (a run that fails or hangs is reported and skipped).
run_case() {  # case alpha tag level [extra options]
  local c=$1 alpha=$2 tag=$3 level=$4
  shift 4
  if late; then echo "  $tag L$level skipped: past the ${deadline} s deadline"; return; fi
  mkdir -p "$out/$tag"
  timeout "${EARTH_RUN_TIMEOUT:-300}" "$gpgpu" earth --case "$c" --alpha "$alpha" --level "$level" \
      --out "$out/$tag/L$level" --json "$out/$tag/L$level.json" "$@" \
      > "$out/$tag/L$level.txt" 2> "$out/$tag/L$level.err" || echo "  $tag L$level FAILED (see $tag/L$level.err)"
  grep -E "height error|simulated|mass " "$out/$tag/L$level.txt" | sed "s/^/  $tag L$level: /" || true
}
# Pictures at one level: static ones for every case, an animation for the three that move.
pictures() {  # level animate
  if [ "$1" = "$picture_level" ]; then
    [ "$2" = 1 ] && echo --frames "$frames" --map-width 768 || echo
  else
    echo --no-pictures
  fi
}

# Cases 1 and 2 against the analytic solutions.
for spec in "2 0 case2 0 case2" "1 0 case1_alpha0 0 case1" "1 1.5207963267948966 case1_alpha1.52 1 case1"; do
  set -- $spec
  wanted "$5" || continue
  stamp "$3"
  for level in $levels; do
    run_case "$1" "$2" "$3" "$level" $(pictures "$level" "$4")
  done
done

# Cases 5 and 6: saved heights (case 5 at day 15, case 6 at day 10), compared with the finest.
for c in 5 6; do
  wanted "case$c" || continue
  stamp "case$c"
  for level in $levels; do
    run_case "$c" 0 "case$c" "$level" --save $(pictures "$level" 1)
  done
  day=$([ "$c" = 5 ] && echo 15 || echo 10)
  coarse=()
  for level in $levels; do
    [ "$level" = "$finest" ] || coarse+=("$out/case$c/L$level/height_case${c}_level${level}_day${day}.bin")
  done
  late && continue
  timeout 240 "$gpgpu" earth compare --reference "$out/case$c/L$finest/height_case${c}_level${finest}_day${day}.bin" \
      "${coarse[@]}" --json "$out/case${c}_compare.json" | tee "$out/case${c}_compare.txt" || echo "compare failed"
done
# Saved fields are large and only needed for the comparison above.
find "$out" -name 'height_case*.bin' -size +8M -delete

# Case 2 tilted, and on the unoptimised grid (the effect of the optimisation on the errors).
if wanted extra; then
  stamp "case2, alpha = pi/4"
  for level in $levels; do
    run_case 2 0.7853981633974483 case2_alpha0.79 "$level" --no-pictures
  done
  stamp "case2 on the bisection grid"
  for level in $levels; do
    run_case 2 0 case2_bisection "$level" --grid bisection --no-recentre --no-pictures
  done
fi

if wanted grid; then
  stamp "grid statistics"
  for level in $levels; do
    late || timeout 120 "$gpgpu" earth grid --level "$level" > "$out/grid_L$level.txt" || true
  done
  mkdir -p "$out/grid_L3" "$out/grid_L5"
  "$gpgpu" earth grid --level 3 --picture "$out/grid_L3/grid.png" > /dev/null
  "$gpgpu" earth grid --level 5 --picture "$out/grid_L5/grid.png" > /dev/null
  "$gpgpu" earth grid --level 5 --grid bisection --no-recentre > "$out/grid_L5_bisection.txt"
fi
python3 scripts/earth-tables.py "$out" --title "$(sed -n 's/^ *renderer  *//p' "$out/device.txt" | head -1)" \
    > "$out/tables.md" 2>/dev/null || true
cat "$out/tables.md"
stamp "done in $(( $(date +%s) - started )) s"

if [ -n "${EARTH_PACK_DIR:-}" ]; then
  mkdir -p "$EARTH_PACK_DIR"
  cp "$out/tables.md" "$EARTH_PACK_DIR/" || true
  tar -C "$out" --exclude='frames' --exclude='*.mp4' -czf "$EARTH_PACK_DIR/results.tar.gz" .
  # Frames in tars of at most ~15 MiB each, whole folders where they fit.
  part=0 size=0 list=()
  flush() { [ ${#list[@]} -gt 0 ] && tar -C "$out" -cf "$EARTH_PACK_DIR/frames_$part.tar" "${list[@]}"; part=$((part + 1)) size=0 list=(); }
  for f in $(cd "$out" && find . -path '*/frames/*.png' | sort); do
    s=$(stat -c %s "$out/$f")
    if [ $((size + s)) -gt 15000000 ]; then flush; fi
    [ "$part" -ge 6 ] && break
    list+=("$f") size=$((size + s))
  done
  flush
  ls -l "$EARTH_PACK_DIR"
fi
