#!/usr/bin/env bash
# Where a process's start-up time goes (issue 17), on prebuilt binaries (BUILD, as
# measure-all.sh sets it): the first kernel split into its steps, empty cache then warm; and
# the CNN's one-epoch run, first, second and third process in one fresh cache folder, with the
# lines of each log that say where its time went.
# Usage: BUILD=DIR bash scripts/device/startup-phases.sh OUT_DIR
set -uo pipefail
out=${1:?usage: startup-phases.sh OUT_DIR}
mkdir -p "$out"
gpgpu=${BUILD:?set BUILD}/tools/gpgpu
source scripts/device/common.sh
data=""
find_nn_data && data=$GPGPU_NN_DATA

wall() {  # wall seconds of a command, its output to $1
  local log=$1
  shift
  local start=$(date +%s.%N)
  "$@" > "$log" 2>&1
  local rc=$?
  local end=$(date +%s.%N)
  printf '%.3f s (rc %s)' "$(awk "BEGIN { print $end - $start }")" "$rc"
}

folder="$out/cache-phases"
rm -rf "$folder" && mkdir -p "$folder/nvidia"  # NVIDIA's driver ignores a missing folder
for run in empty warm warm warm; do
  t=$(XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
      wall "$out/phases.tmp" "$gpgpu" bench startup-probe kernel-phases)
  echo "kernel-phases $run: process $t; $(cat "$out/phases.tmp")" | tee -a "$out/phases.txt"
done
for run in empty warm driver-only; do
  off=""
  [ "$run" = driver-only ] && off=off
  t=$(XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
      GPGPU_CACHE=$off wall "$out/phases.tmp" "$gpgpu" bench startup-probe heavy-kernels)
  echo "heavy-kernels $run: process $t; $(cat "$out/phases.tmp")" | tee -a "$out/phases.txt"
done
rm -rf "$folder"
for run in 1 2 3; do
  echo "gpgpu --version: $(wall "$out/phases.tmp" "$gpgpu" --version)" | tee -a "$out/phases.txt"
done
LD_DEBUG=statistics "$gpgpu" --version 2>&1 | grep -E "total startup time|relocation" | head -3 |
  tee -a "$out/phases.txt"
export GPGPU_CLI_TIMING=1

[ -n "$data" ] || { echo "no Fashion-MNIST"; exit 0; }
for threads in default; do
  folder="$out/cache-$threads"
  rm -rf "$folder" && mkdir -p "$folder/nvidia"
  for run in first second third; do
    t=$(
      XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
        wall "$out/cnn-$threads-$run.log" "$gpgpu" train --net cnn --epochs 1 \
        --data "$data" --no-plots -q --out "$out/cnn-out"
    )
    echo "cnn $run: $t" | tee -a "$out/phases.txt"
    grep -E "^data|kernels built|^epoch|^programs|^time|^gpgpu: main" "$out/cnn-$threads-$run.log" |
      sed 's/^/    /' | tee -a "$out/phases.txt"
  done
  # Later processes until the network's GEMMs are all tuned (a run compiles nothing), then
  # one more timed: a warm run at steady state. And a warm run with --no-autotune.
  for run in $(seq 4 ${CONVERGE_RUNS:-16}); do
    XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
      "$gpgpu" train --net cnn --epochs 1 --data "$data" --no-plots -q --out "$out/cnn-out" \
      > "$out/cnn-run.log" 2>&1
    compiled=$(grep -o '^programs: [0-9]*' "$out/cnn-run.log" | grep -o '[0-9]*$')
    echo "cnn run $run: $compiled programs compiled" | tee -a "$out/phases.txt"
    [ "$compiled" = 0 ] && break
  done
  for variant in converged no-autotune two-epochs; do
    extra=(--epochs 1)
    [ $variant = no-autotune ] && extra=(--epochs 1 --no-autotune)
    [ $variant = two-epochs ] && extra=(--epochs 2)  # epoch 2 and its evaluation: the steady state
    t=$(XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
        wall "$out/cnn-$variant.log" "$gpgpu" train --net cnn "${extra[@]}" \
        --data "$data" --no-plots -q --out "$out/cnn-out")
    echo "cnn $variant: $t" | tee -a "$out/phases.txt"
    grep -E "^epoch|^programs|^time|^gpgpu: main" "$out/cnn-$variant.log" | sed 's/^/    /' |
      tee -a "$out/phases.txt"
  done
  # `gpgpu predict` of one image with that model, in the same (warm) cache folder.
  for run in first second third; do
    t=$(XDG_CACHE_HOME="$folder" __GL_SHADER_DISK_CACHE_PATH="$folder/nvidia" GPGPU_CACHE_DIR= \
        wall "$out/predict-$run.log" "$gpgpu" predict "$out/cnn-out/model" --data "$data" \
        --limit 1 --no-plots --out "$out/predict-out")
    echo "predict 1 image $run: $t; $(grep -E '^time|^gpgpu: main' "$out/predict-$run.log" | tr '\n' ' ')" |
      tee -a "$out/phases.txt"
  done
  rm -rf "$folder" "$out/cnn-out" "$out/predict-out"
done
