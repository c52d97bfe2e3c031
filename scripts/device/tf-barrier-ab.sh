#!/usr/bin/env bash
# On a GPU machine: whether the memory barrier that ends a transform-feedback run is what keeps
# a Buffer::upload queued right after the run from being overwritten by it. Builds (Release)
# transform_feedback_test twice in one call: from this tree, and from a copy of it with that
# barrier line removed. Runs TransformFeedback.AnUploadAfterARunIsWhatTheNextRunReads 20 times
# with each. Writes the logs and summary.txt under OUT; prints the summary. About 4-6 minutes.
# Expected where the barrier is the fix: "with barrier: passed 20 failed 0" and
# "without barrier: failed > 0".
# Usage: bash scripts/device/tf-barrier-ab.sh OUT
set -uo pipefail
out=${1:?OUT directory}
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -f .gl/prelude.sh ] && source .gl/prelude.sh
[ -f .deps/prelude.sh ] && source .deps/prelude.sh
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
file=src/kernels/transform_feedback_kernel.cpp
line='if (state_->platform.gles31) GL(glMemoryBarrier(GL_ALL_BARRIER_BITS));'
grep -qF "$line" "$file" || { note "the barrier line is not in $file"; exit 1; }
without=/tmp/gpgpu-tf-ab-src
rm -rf "$without" && mkdir -p "$without"
tar --exclude=./build --exclude=./.git --exclude=./.deps --exclude=./.gl --exclude=./.zink \
  --exclude=./data --exclude=./.ci -cf - . | tar -xf - -C "$without"
grep -vF "$line" "$file" > "$without/$file"
probe() {  # label source build
  cmake -S "$2" -B "$3" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
    -DGPGPU_BUILD_EXAMPLES=OFF > "$out/configure.$1.log" 2>&1 || { tail -20 "$out/configure.$1.log"; return 1; }
  cmake --build "$3" -j"$(nproc)" --target transform_feedback_test > "$out/build.$1.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.$1.log" | head -20; return 1; }
  timeout 200 "$3/tests/transform_feedback_test" --gtest_color=no --gtest_repeat=20 \
    --gtest_filter=TransformFeedback.AnUploadAfterARunIsWhatTheNextRunReads > "$out/run.$1.log" 2>&1
  note "$1 barrier (20 repeats): rc $? passed $(grep -c '^\[       OK \]' "$out/run.$1.log")" \
    "failed $(grep -c '^\[  FAILED  \] TransformFeedback' "$out/run.$1.log")"
  grep -m2 -A3 "Failure" "$out/run.$1.log" | tee -a "$summary"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1
note "device: $(cat "$out/nvidia-smi.txt")  commit: $(git rev-parse --short HEAD 2>/dev/null)"
probe with . /tmp/gpgpu-tf-ab-with
probe without "$without" /tmp/gpgpu-tf-ab-without
