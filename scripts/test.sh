#!/usr/bin/env bash
# Builds gpgpu with -Wall -Wextra -Werror and runs every test; then builds again with
# AddressSanitizer + UndefinedBehaviorSanitizer and runs every test a second time; then
# replays and briefly fuzzes the .npy reader with libFuzzer.
# The sanitized executables keep the GL drivers loaded until exit (cmake/sanitize.cmake), so the
# leak check does not depend on what the driver does at exit; the sanitizer_reports_leak and
# sanitizer_reports_clean tests prove it still catches a leak of ours (docs/reliability.md).
# Each stage prints how long it took.
# Usage (as root, from the repository root): bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GPGPU_SKIP_OPTIONAL=1 bash scripts/install-deps.sh
jobs=$(nproc)
stage_start=$SECONDS
stage_done() {
  echo "== $1 took $((SECONDS - stage_start)) s"
  stage_start=$SECONDS
}

echo "== build (warnings are errors) and test"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPGPU_WERROR=ON >/dev/null
cmake --build build/test -j"$jobs"
stage_done "the -Werror build"
ctest --test-dir build/test --output-on-failure -j"$jobs"
stage_done "its tests"

echo "== build with ASan + UBSan and test again"
# CUDA's runtime does not run under ASan; the sanitized build leaves the CUDA reference out.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPGPU_WERROR=ON -DGPGPU_SANITIZE=ON \
      -DGPGPU_CUDA=OFF -DGPGPU_BUILD_BENCH=OFF -DGPGPU_BUILD_EXAMPLES=ON >/dev/null
cmake --build build/asan -j"$jobs"
stage_done "the sanitized build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build/asan --output-on-failure -j"$jobs" -E 'install_consumer'
stage_done "its tests (examples, the CLI and the leak-check proofs included)"

if command -v clang++ >/dev/null; then
  echo "== fuzz the .npy reader (replay the corpus, then 30 s of new inputs)"
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DGPGPU_FUZZ=ON -DGPGPU_CUDA=OFF \
        -DGPGPU_BUILD_BENCH=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TOOLS=OFF >/dev/null
  cmake --build build/fuzz --target npy_fuzz -j"$jobs"
  work=$(mktemp -d)
  cp tests/fuzz/corpus/npy/* "$work"/
  build/fuzz/tests/fuzz/npy_fuzz -max_total_time=30 -max_len=4096 "$work" 2>&1 | tail -3
  rm -rf "$work"
  stage_done "fuzzing"
fi
echo "== all tests passed"
