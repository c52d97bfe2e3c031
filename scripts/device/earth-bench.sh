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
#   EARTH_FRAMES          animation frames (default 60)
#   GPGPU_DEVICE          as everywhere (default: the first GPU)
#   EARTH_BUILD=0         use an existing BUILD_DIR/tools/gpgpu
set -euo pipefail

out=${1:?usage: earth-bench.sh OUT_DIR [BUILD_DIR]}
build=${2:-/tmp/b-earth}
levels=${EARTH_LEVELS:-"4 5 6 7 8"}
bench_levels=${EARTH_BENCH_LEVELS:-6,7,8}
picture_level=${EARTH_PICTURE_LEVEL:-6}
frames=${EARTH_FRAMES:-60}
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

stamp "step timing at levels $bench_levels"
"$gpgpu" earth bench --levels "$bench_levels" --variants "${EARTH_BENCH_VARIANTS:-default,preload,wg64,wg256}" \
    --json "$out/bench.json" | tee "$out/bench.txt"

stamp "grid statistics"
for level in $levels; do
  "$gpgpu" earth grid --level "$level" > "$out/grid_L$level.txt"
done
"$gpgpu" earth grid --level 3 --out "$out/grid_L3" > /dev/null
"$gpgpu" earth grid --level 5 --out "$out/grid_L5" > /dev/null
"$gpgpu" earth grid --level 5 --grid bisection --no-recentre > "$out/grid_L5_bisection.txt"

# Cases 1 and 2 against the analytic solutions.
run_case() {  # case alpha tag level [extra options]
  local c=$1 alpha=$2 tag=$3 level=$4
  shift 4
  "$gpgpu" earth --case "$c" --alpha "$alpha" --level "$level" --out "$out/$tag/L$level" \
      --json "$out/$tag/L$level.json" "$@" > "$out/$tag/L$level.txt" 2> "$out/$tag/L$level.err"
  grep -E "height error|simulated|mass " "$out/$tag/L$level.txt" | sed "s/^/  $tag L$level: /"
}
for spec in "1 0 case1_alpha0" "1 1.5207963267948966 case1_alpha1.52" "2 0 case2" "2 0.7853981633974483 case2_alpha0.79"; do
  set -- $spec
  mkdir -p "$out/$3"
  stamp "$3"
  for level in $levels; do
    if [ "$level" = "$picture_level" ]; then
      run_case "$1" "$2" "$3" "$level" --frames "$frames"
    else
      run_case "$1" "$2" "$3" "$level" --no-pictures
    fi
  done
done

# The bisection grid, for the effect of the optimisation on case 2's errors.
mkdir -p "$out/case2_bisection"
stamp "case2 on the bisection grid"
for level in $levels; do
  [ "$level" -le 7 ] || continue
  run_case 2 0 case2_bisection "$level" --grid bisection --no-recentre --no-pictures
done

# Cases 5 and 6: saved heights (case 5 at day 15, case 6 at day 10), compared with the finest.
for c in 5 6; do
  mkdir -p "$out/case$c"
  stamp "case$c"
  for level in $levels; do
    if [ "$level" = "$picture_level" ]; then
      run_case "$c" 0 "case$c" "$level" --save --frames "$frames"
    else
      run_case "$c" 0 "case$c" "$level" --save --no-pictures
    fi
  done
  day=$([ "$c" = 5 ] && echo 15 || echo 10)
  coarse=()
  for level in $levels; do
    [ "$level" = "$finest" ] || coarse+=("$out/case$c/L$level/height_case${c}_level${level}_day${day}.bin")
  done
  "$gpgpu" earth compare --reference "$out/case$c/L$finest/height_case${c}_level${finest}_day${day}.bin" \
      "${coarse[@]}" --json "$out/case${c}_compare.json" | tee "$out/case${c}_compare.txt"
done
# Saved fields are large and only needed for the comparison above.
find "$out" -name 'height_case*.bin' -size +8M -delete
stamp "done"
