#!/usr/bin/env bash
# On a GPU machine: checks the nn gradient hooks on every backend and the transform-feedback
# upload ordering they rely on. Builds (Release) only nn_cpu_test and transform_feedback_test,
# then runs
#   1. TransformFeedback.AnUploadAfterARunIsWhatTheNextRunReads, 20 times: a Buffer::upload
#      queued while a transform-feedback run that writes the same Buffer may still be
#      computing must be what the next run and a read-back see;
#   2. the Backends/NnGradientHook.* suite (cpu, compute, transform_feedback), 3 times:
#      EarlyCommitsAndTheRestReachTheUpdate/transform_feedback failed on an H200 before the
#      GradientStaging fix, RequestsBelowReadyFromWaitForTheirLayers checks the fix itself.
# Writes the logs and summary.txt under OUT; prints the summary. About 3-5 minutes.
# The GL libraries and build dependencies come from .gl/ and .deps/ (as gpu-suite.sh).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# Usage: bash scripts/device/tf-hook-check.sh OUT
set -uo pipefail
out=${1:?OUT directory}
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
build=/tmp/gpgpu-tf-hook
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=ON \
  -DGPGPU_BUILD_EXAMPLES=OFF > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $build -j"$(nproc)" --target nn_cpu_test transform_feedback_test \
  > "$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/nvidia-smi.txt" 2>&1
note "device: $(cat "$out/nvidia-smi.txt")  commit: $(git rev-parse --short HEAD 2>/dev/null)"
timeout 240 $build/tests/transform_feedback_test --gtest_color=no --gtest_repeat=20 \
  --gtest_filter=TransformFeedback.AnUploadAfterARunIsWhatTheNextRunReads > "$out/tf-upload.log" 2>&1
note "upload after a run (20 repeats): rc $? passed $(grep -c '^\[       OK \]' "$out/tf-upload.log")" \
  "failed $(grep -c '^\[  FAILED  \] TransformFeedback' "$out/tf-upload.log")"
grep -m3 -A3 "Failure" "$out/tf-upload.log" | tee -a "$summary"
timeout 400 $build/tests/nn_cpu_test --gtest_color=no --gtest_repeat=3 \
  --gtest_filter='Backends/NnGradientHook.*' > "$out/nn-hooks.log" 2>&1
note "NnGradientHook (3 repeats of 21): rc $? passed $(grep -c '^\[       OK \]' "$out/nn-hooks.log")"
grep '^\[  FAILED  \] Backends' "$out/nn-hooks.log" | sort | uniq -c | cut -c1-140 | tee -a "$summary"
