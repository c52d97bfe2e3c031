#!/usr/bin/env bash
# Checks the docs (scripts/check-docs.py); builds gpgpu once with -Wall -Wextra -Werror and
# AddressSanitizer + UndefinedBehaviorSanitizer and runs every test under them (the API
# reference among them: docs_api), then the GL tests once more with Mesa's zink driver over
# lavapipe and once more within OpenGL ES 3.1's minimum limits (the same binaries); then
# replays and briefly fuzzes the .npy and ONNX readers with libFuzzer.
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

echo "== the docs: links and images resolve, every results folder is cited, no development diary"
python3 scripts/check-docs.py

echo "== build with -Wall -Wextra -Werror, AddressSanitizer and UndefinedBehaviorSanitizer; test"
# One build serves both checks: every source compiles with warnings as errors, and every
# test, example and CLI run happens under the sanitizers (two separate builds took longer
# than CI's budget on 2 cores). CUDA's runtime does not run under ASan: the CUDA reference
# is left out (it needs a GPU anyway). -g1: line tables only, which is what the sanitizers'
# stack traces print (file:line); full debug information made every compile slower.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPGPU_WERROR=ON -DGPGPU_SANITIZE=ON \
      -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 \
      -DGPGPU_CUDA=OFF -DGPGPU_BUILD_BENCH=ON -DGPGPU_BUILD_EXAMPLES=ON >/dev/null
cmake --build build/asan -j"$jobs"
stage_done "the build"
# intercept_tls_get_addr=0: GCC 12's libasan takes a dynamic TLS block that happens to start
# 16 bytes into a page for glibc 2.19's layout and hands LeakSanitizer the two words before
# it as a range to scan; since glibc 2.25 that is garbage, and a Mesa TLS block landing there
# by chance kills LSan's tracer at exit ("Tracer caught signal 11: addr=0x2140", the first
# read of ScanRangeForPointers; google/sanitizers#1322; docs/reliability.md). On glibc >= 2.25 the interceptor records no range (every block is
# "static tls" or "Can't guess glibc version", size 0), so the leak check loses nothing: the
# blocks are malloc'd and reachable through each thread's TLS table.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Mesa's shader cache lives in the build tree, not under the passwd entry's home (where Mesa
# puts it even when HOME is changed): a fresh clone compiles every shader, as CI does, and the
# tests leave nothing in the user's ~/.cache.
export MESA_SHADER_CACHE_DIR="$PWD/build/asan/mesa-shader-cache"
# Every test passes on its first run or the suite fails: no retries.
ctest --test-dir build/asan --output-on-failure -j"$jobs"
stage_done "the tests (examples, the CLI, the installed package and the leak-check proofs included)"

echo "== the GL tests again on a second Mesa driver: zink (GL on Vulkan) over lavapipe"
# The same sanitized binaries; only the driver changes (docs/portability.md, "zink"). Tests
# labelled host, browser or packaging cannot differ by GL driver; those labelled long take
# paths a cheaper test also takes, and those labelled profile check a limit profile's plans
# (tests/CMakeLists.txt names which): none runs again. The
# rest cover every path: the three kernel kinds, the data path, every primitive, matmul's
# methods, nn's backends, earth across MPI ranks, NetCDF, ONNX, the CLI, gpgpu.js, Python.
# Mesa's shader cache gets a folder of its own, so that shaders compiled under other settings
# (ZINK_INLINE_UNIFORMS) are not reused.
# This pass and the next compile for 4-wide vectors (LP_NATIVE_VECTOR_WIDTH=128: what
# llvmpipe and lavapipe do on CPUs without AVX, such as ARM's), the first pass for the
# machine's own width (8 wide with AVX): both code generators are tested, and most of these
# passes' time is LLVM compiling shaders, which is often shorter at 4 wide (matmul_test from
# a cold cache: 44-53 s at 8 wide, 24-30 s at 4; nn_fusion_test: the same either way).
export LP_NATIVE_VECTOR_WIDTH=128
zink_runtime=$(mktemp -d)
GALLIUM_DRIVER=zink LIBGL_ALWAYS_SOFTWARE=1 XDG_RUNTIME_DIR="$zink_runtime" \
  MESA_SHADER_CACHE_DIR="$PWD/build/asan/zink-shader-cache" \
  ctest --test-dir build/asan --output-on-failure -j"$jobs" -LE 'host|browser|packaging|long|profile'
rm -rf "$zink_runtime"
stage_done "the GL tests on zink over lavapipe"

echo "== the GL tests again within OpenGL ES 3.1's guaranteed minimum: GPGPU_LIMITS=es31-minimum"
# The same binaries, with every limit gpgpu reads clamped to what the spec guarantees (128
# invocations a group, 16 KiB of shared memory, 4 storage buffers in a compute shader, none in
# the other stages, no optional extension: docs/portability.md). Each test's own checks run:
# gpgpu's kernels adapt, or the test asserts the refusal that names the limit. Left out, as in
# the zink pass: host, browser, packaging, long and profile tests (these set a profile of
# their own), and those labelled es31-refused (the
# earth model binds 5-7 storage buffers: earth_model_test asserts its refusal in the pass above).
# resources_contexts_test is left out too: making a thousand Contexts reads no limit.
GPGPU_LIMITS=es31-minimum ctest --test-dir build/asan --output-on-failure -j"$jobs" \
  -LE 'host|browser|packaging|long|profile|es31-refused' -E '^resources_contexts_test$'
stage_done "the GL tests under es31-minimum"
unset LP_NATIVE_VECTOR_WIDTH

echo "== packages: the .debs, the wheel and the npm package, each installed clean and used"
# The npm package is packed from the browser suite's WebAssembly build (no second web build).
GPGPU_WEB_BUILD_DIR=build/asan/tests/browser/web bash tests/packaging/test-packages.sh
stage_done "the packages (docs/packaging.md)"

if command -v clang++ >/dev/null; then
  echo "== fuzz the .npy reader (30 s) and the ONNX reader (20 s): the corpus, then new inputs"
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DGPGPU_FUZZ=ON -DGPGPU_CUDA=OFF \
        -DGPGPU_BUILD_BENCH=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TOOLS=OFF >/dev/null
  cmake --build build/fuzz --target npy_fuzz onnx_fuzz -j"$jobs"
  work=$(mktemp -d)
  cp tests/fuzz/corpus/npy/* "$work"/
  build/fuzz/tests/fuzz/npy_fuzz -max_total_time=30 -max_len=4096 "$work" 2>&1 | tail -3
  rm -rf "$work"
  work=$(mktemp -d)
  cp tests/fuzz/corpus/onnx/* "$work"/
  build/fuzz/tests/fuzz/onnx_fuzz -max_total_time=20 -max_len=4096 -dict=tests/fuzz/onnx.dict \
    "$work" 2>&1 | tail -3
  rm -rf "$work"
  stage_done "fuzzing"
fi
echo "== all tests passed"
