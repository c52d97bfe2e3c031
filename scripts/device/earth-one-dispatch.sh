#!/usr/bin/env bash
# On a GPU machine (H100/H200): what ModelOptions::one_dispatch_steps changes in the earth
# model's steps, in one run:
#  1. builds the CLI and the earth model's tests (Release, no CUDA);
#  2. runs the earth model's tests on the GPU (ctest -R earth_, MPI ranks among them);
#  3. `gpgpu earth bench --case 2` at levels 3-7, two rounds: unfused-direct (8 dispatches a
#     step, each run on its own, as before recorded sequences), fused and unfused (5 and 8
#     dispatches, replayed), default (auto: one dispatch a step on a GPU up to level 7), one;
#  4. level 6 with 41 to 512 work groups of 128 (one-g<N>), and levels 8 and 9;
#  5. five days of case 2 at level 6 with --one-dispatch on and off (the errors against the
#     exact steady state and the wall time of each).
# Writes everything as OUT/all.tgz; about 4 minutes on an H200 with the build.
# Usage: bash scripts/device/earth-one-dispatch.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/earth-one-dispatch}
build=${2:-/tmp/gpgpu-earth-build}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started

configure_release "$build" "$out"
tests=$(cd "$build" && ctest -N -R '^earth_' | sed -n 's/^ *Test *#[0-9]*: //p' |
  sed 's/_np[0-9]*$//' | sort -u)
# shellcheck disable=SC2086
build_targets "$build" "$out" gpgpu_cli $tests
gpgpu=$build/tools/gpgpu
"$gpgpu" info > "$out/gpgpu-info.txt" 2>&1
stamp "built; $(grep -m1 renderer "$out/gpgpu-info.txt")"

(cd "$build" && timeout 400 ctest -R '^earth_' --output-on-failure) > "$out/ctest.txt" 2>&1
grep -E "tests passed|FAILED|Failed|Not Run" "$out/ctest.txt" | tail -12
stamp "tests done"

notes='^(Per step|a step|chain|compulsory|over [0-9])'
bench() {  # NAME ARGS...: one bench run, its table on stdout and in OUT/NAME.txt
  local name=$1
  shift
  timeout 240 "$gpgpu" earth bench --case 2 "$@" --json "$out/$name.json" 2>&1 |
    grep -Ev "$notes" > "$out/$name.txt"
  cat "$out/$name.txt"
  stamp "$name done"
}
for r in 1 2; do
  bench "levels-$r" --levels 3,4,5,6,7 --variants unfused-direct,fused,unfused,default,one --seconds 1.5
done
bench groups --levels 6 --seconds 1.5 \
  --variants one-g41,one-g82,one-g132,one-g164,one-g264,one-g321,one-g512,unfused
bench large --levels 8,9 --variants unfused,one --seconds 2
for way in on off; do
  timeout 120 "$gpgpu" earth --case 2 --level 6 --days 5 --no-pictures --one-dispatch $way \
    --out "$out/run-$way" > "$out/run-$way.txt" 2>&1
  echo "exit $?" >> "$out/run-$way.txt"
  tail -12 "$out/run-$way.txt"
done
stamp "runs done"
tar czf "$out.tgz" -C "$out" . && rm -rf "$out" && mkdir "$out" && mv "$out.tgz" "$out/all.tgz"
