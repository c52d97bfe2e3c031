#!/usr/bin/env bash
# On a GPU machine: the primitives' tests on both kernel families (subgroup and shared
# memory), `gpgpu bench primitives --paths both` against CUB, the tuning sweep and the data
# path benchmarks, each stage bounded so that what ran still comes back under OUT_DIR.
#
#   [DEVBIN=dir] [BUILD=dir] [DEADLINE=s] [STAGES="subgroup tests bench sweep datapath"] \
#     bash scripts/device/primitives-subgroup.sh OUT_DIR
#
# DEVBIN: binaries built beforehand (gpgpu, tests/, lib/ for libraries the image may lack,
# e.g. a build of this tree with CUDA on a machine that has nvcc); used when every library
# they need resolves there, else the script builds the targets it needs in BUILD (Release,
# CUB reference included). DEADLINE: seconds for the whole call (default 500).
# Writes OUT_DIR/summary.txt (stage times, test results, the bench's ratio tables),
# gpgpu-info.txt, primitives.csv, sweep.csv, datapath.log and logs.tar.gz (everything).
set -uo pipefail
out=${1:?usage: primitives-subgroup.sh OUT_DIR}
mkdir -p "$out/logs"
deadline_default=500
source scripts/device/stages.sh
summary=$out/summary.txt
stamp_log=$summary
tests="primitives_reduce_test primitives_argextreme_test primitives_scan_test
  primitives_sort_test primitives_histogram_test primitives_compaction_test
  primitives_segmented_test primitives_variants_test primitives_subgroup_test
  buffer_texels_test"

bin=${DEVBIN:-}
if [ -n "$bin" ]; then
  bin=$(cd "$bin" && pwd)
  export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  missing=$( (ldd "$bin/gpgpu"; for t in $tests; do ldd "$bin/tests/$t"; done) 2>&1 |
    grep "not found" | sort -u)
  if [ -n "$missing" ]; then
    stamp "prebuilt binaries lack: $missing; building instead"
    bin=""
  fi
fi
if [ -z "$bin" ]; then
  build=${BUILD:-/tmp/gpgpu-primitives-subgroup}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
    > "$out/logs/configure.log" 2>&1 || { tail -30 "$out/logs/configure.log"; exit 1; }
  # shellcheck disable=SC2086
  timeout "$(budget 300)" cmake --build "$build" -j"$(nproc)" --target gpgpu_cli $tests \
    > "$out/logs/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/logs/build.log" | head -40; }
  mkdir -p "$build/bin" && ln -sf "$build/tools/gpgpu" "$build/bin/gpgpu" &&
    ln -sfn "$build/tests" "$build/bin/tests"
  bin=$build/bin
fi
gpgpu=$bin/gpgpu
stamp "binaries: $bin"
"$gpgpu" info > "$out/gpgpu-info.txt" 2>&1
grep -E "renderer|subgroups" "$out/gpgpu-info.txt" | head -3 | tee -a "$summary"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  >> "$summary" 2>&1

# TESTS, FAMILIES (GPGPU_PRIMITIVES_SUBGROUPS values, default "0 1"), TEST_SECONDS, SIZES,
# REPEATS and DATAPATH narrow the stages.
for stage in ${STAGES:-subgroup tests bench sweep datapath}; do
  case $stage in
    tests)
      # Every primitives test on both families, 8 processes at a time.
      run_one() {
        GPGPU_PRIMITIVES_SUBGROUPS=$2 timeout "$3" "$bin/tests/$1" --gtest_brief=1 \
          > "$out/logs/$1.$2.log" 2>&1
        echo "$1 subgroups=$2 exit $?"
      }
      export -f run_one
      export bin out
      limit=$(budget ${TEST_SECONDS:-200})
      for t in ${TESTS:-$tests}; do
        for family in ${FAMILIES:-0 1}; do echo "$t $family $limit"; done
      done | xargs -P 8 -L 1 bash -c 'run_one "$@"' _ | sort > "$out/tests.txt"
      stamp "tests: $(grep -c 'exit 0' "$out/tests.txt") of $(wc -l < "$out/tests.txt") passed"
      grep -v "exit 0" "$out/tests.txt" | tee -a "$summary"
      ;;
    subgroup)
      # The subgroup kernels' own test first (seconds), so a broken family shows early.
      timeout "$(budget 60)" "$bin/tests/primitives_subgroup_test" > "$out/subgroup-test.log" 2>&1
      stamp "primitives_subgroup_test (status $?)"
      grep -E "FAILED|PASSED" "$out/subgroup-test.log" | head -20 >> "$summary"
      ;;
    bench)
      timeout "$(budget 200)" "$gpgpu" bench primitives --log2-sizes ${SIZES:-16,20,24,26,28} \
        --repeats ${REPEATS:-10} --paths both --no-cpu --no-charts --out "$out/bench" \
        > "$out/logs/bench-primitives.log" 2> "$out/logs/bench-primitives.err"
      stamp "bench primitives (status $?)"
      cp "$out/bench/primitives/primitives.csv" "$out/primitives.csv" 2> /dev/null ||
        grep -E "^  [a-z_]+ +(gpgpu|cub)" "$out/logs/bench-primitives.err" > "$out/primitives.csv"
      sed -n '/^## gpgpu/,/^## [^g]/p' "$out/logs/bench-primitives.log" >> "$summary"
      ;;
    sweep)
      timeout "$(budget 120)" "$gpgpu" bench primitives --primitives copy --log2-sizes 26 \
        --sweep --repeats 5 --no-cpu --no-charts --out "$out/sweep" \
        > "$out/logs/sweep.log" 2> "$out/logs/sweep.err"
      stamp "sweep (status $?)"
      cp "$out/sweep/primitives/primitives-sweep.csv" "$out/sweep.csv" 2> /dev/null
      grep "sweep" "$out/logs/sweep.err" | sed 's/^ *//' >> "$summary"
      ;;
    datapath)
      for which in ${DATAPATH:-saxpy pipeline variants matmul}; do
        timeout "$(budget 120)" "$gpgpu" bench datapath --which "$which" --repeats 5 \
          --warmup 1 --out "$out/datapath" >> "$out/datapath.log" 2>&1
        stamp "bench datapath $which (status $?)"
      done
      ;;
  esac
done
tar -czf "$out/logs.tar.gz" -C "$out" logs bench sweep datapath 2> /dev/null
rm -rf "$out/logs" "$out/bench" "$out/sweep" "$out/datapath"
stamp "done"
