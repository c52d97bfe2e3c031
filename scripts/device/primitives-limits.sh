#!/usr/bin/env bash
# On a GPU machine: the primitives' tests under each device-limit profile (GPGPU_LIMITS), on
# both kernel families where the profile keeps subgroups, so that the GPU-style variants a
# small device gets (the look-back scan's 4-block form, the ranked sort's keys and values
# apart, 128-wide groups) run on a real GPU, not only in llvmpipe's CPU-style ones.
#
#   [BUILD=dir] [DEADLINE=s] [PROFILES="..."] bash scripts/device/primitives-limits.sh OUT_DIR
#
# PROFILES: default "none es31-minimum rpi5-v3d mali-g610-panfrost adreno-6xx-freedreno
# intel-xe-iris amd-rdna-radeonsi" (none: the driver's limits). DEADLINE: seconds for the
# whole call (default 560; the build takes most of it on a fresh machine).
# Writes OUT_DIR/summary.txt (per profile and family: tests passed, the failures' first
# lines) and OUT_DIR/logs.tar.gz (every test's output).
set -uo pipefail
out=${1:?usage: primitives-limits.sh OUT_DIR}
mkdir -p "$out/logs"
source scripts/device/stages.sh
summary=$out/summary.txt
stamp_log=$summary
left() { echo $((${DEADLINE:-560} - ($(date +%s) - t0) - 15)); }
tests="primitives_reduce_test primitives_argextreme_test primitives_scan_test
  primitives_sort_test primitives_histogram_test primitives_compaction_test
  primitives_segmented_test primitives_variants_test primitives_subgroup_test
  buffer_texels_test primitives_planner_test"

build=${BUILD:-/tmp/gpgpu-primitives-limits}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
  -DGPGPU_CUDA=OFF > "$out/logs/configure.log" 2>&1 || { tail -30 "$out/logs/configure.log"; exit 1; }
# shellcheck disable=SC2086
timeout "$(left)" cmake --build "$build" -j"$(nproc)" --target gpgpu_cli $tests \
  > "$out/logs/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/logs/build.log" | head -40; }
stamp "built"
"$build/tools/gpgpu" info > "$out/gpgpu-info.txt" 2>&1
grep -E "renderer|subgroups" "$out/gpgpu-info.txt" | head -3 | tee -a "$summary"

run_one() {  # test profile family seconds
  local env=(GPGPU_PRIMITIVES_SUBGROUPS="$3")
  [ "$2" != none ] && env+=(GPGPU_LIMITS="$2")
  env "${env[@]}" timeout "$4" "$build/tests/$1" --gtest_brief=1 > "$out/logs/$1.$2.$3.log" 2>&1
  echo "$2 subgroups=$3 $1 exit $?"
}
export -f run_one
export build out
per_test=$(($(left) / 3))
for profile in ${PROFILES:-none es31-minimum rpi5-v3d mali-g610-panfrost adreno-6xx-freedreno \
  intel-xe-iris amd-rdna-radeonsi}; do
  for family in 0 1; do
    for t in $tests; do echo "$t $profile $family $per_test"; done
  done
done | xargs -P 8 -L 1 bash -c 'run_one "$@"' _ | sort > "$out/tests.txt"
stamp "tests: $(grep -c 'exit 0' "$out/tests.txt") of $(wc -l < "$out/tests.txt") passed"
grep -v "exit 0" "$out/tests.txt" | while read -r profile family test rest; do
  echo "$profile $family $test $rest"
  grep -E "Failure|FAILED|exception" -A3 "$out/logs/$test.$profile.${family#subgroups=}.log" |
    head -8 | sed 's/^/    /'
done | tee -a "$summary"
tar -czf "$out/logs.tar.gz" -C "$out" logs 2> /dev/null
rm -rf "$out/logs"
stamp "done"
