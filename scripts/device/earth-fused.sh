#!/usr/bin/env bash
# On a GPU machine (H100/H200): what ModelOptions::fuse_stages changes in the earth model's
# steps, in one run:
#  1. builds the CLI and earth_model_test (Release, no CUDA);
#  2. runs earth_model_test on the GPU (the fused stages against the plain kernels among it);
#  3. `gpgpu earth bench` at levels 3-8, two rounds, variants fused and unfused
#     (ModelOptions::fuse_stages on and off: 5 and 8 dispatches a step) and default (auto:
#     fused on a GPU up to level 5); then levels 8 and 9, fused and unfused.
# Writes everything under OUT; about 3 minutes on an H200 with the build.
# Usage: bash scripts/device/earth-fused.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/earth-fused}
build=${2:-/tmp/gpgpu-earth-build}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started

configure_release "$build" "$out"
build_targets "$build" "$out" gpgpu_cli earth_model_test
gpgpu=$build/tools/gpgpu
$gpgpu info > "$out/gpgpu-info.txt" 2>&1
stamp "built; $(grep -m1 renderer "$out/gpgpu-info.txt")"

timeout 300 "$build/tests/earth_model_test" > "$out/earth-model-test.txt" 2>&1
echo "earth_model_test exit $?" >> "$out/earth-model-test.txt"
grep -E "FAILED|PASSED|exit" "$out/earth-model-test.txt" | tail -8
stamp "earth_model_test done"

notes='^(Per step|a step|chain|compulsory|over [0-9])'
for r in 1 2; do
  timeout 240 $gpgpu earth bench --levels 3,4,5,6,7,8 --variants default,fused,unfused \
    --seconds 1.5 --json "$out/earth-$r.json" 2>&1 | grep -Ev "$notes" > "$out/earth-$r.txt"
  cat "$out/earth-$r.txt"
  stamp "round $r done"
done
timeout 240 $gpgpu earth bench --levels 8,9 --variants fused,unfused --seconds 2 \
  --json "$out/earth-large.json" 2>&1 | grep -Ev "$notes" > "$out/earth-large.txt"
cat "$out/earth-large.txt"
stamp "done"
