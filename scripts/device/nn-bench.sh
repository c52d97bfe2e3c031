#!/usr/bin/env bash
# On a GPU machine (the H100): gpgpu::nn against PyTorch in one run, and the accuracy runs.
#  1. builds the gpgpu CLI (Release);
#  2. times the plain 2-conv net ("cnn") at batch 64 and 256, 3 epochs each (the first a
#     warm-up), and classifying the 10k test images: PyTorch (bench/nn/torch_cnn.py, fp32,
#     TF32 off) then gpgpu (`gpgpu bench nn`), plus the transform-feedback backend on 3200
#     images; writes summary.md with the ratios;
#  3. trains "cnn" (target >= 92% test accuracy) and "cnn-bn" with augmentation (>= 93.5%)
#     with their recipes, keeping logs, history.json, confusion matrices, models and plots;
#  4. profiles one short epoch per batch size (GPGPU_NN_PROFILE: time per stage).
# Logs, JSON and PNGs (when gnuplot exists; else the .dat/.gp files to draw them) go to
# OUT_DIR. About 7-9 minutes on an H100. Epoch counts: CNN_EPOCHS (15), BN_EPOCHS (30);
# TRAIN_TIMEOUT (seconds, default none) bounds each accuracy run (its epochs so far are kept).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# The GL libraries and build dependencies come from .gl/ and .deps/ (as gpu-suite.sh).
# NN_SMOKE=1 shrinks every step to a few hundred images (a check of the script itself, e.g. on
# llvmpipe; its figures mean nothing).
# Usage: bash scripts/device/nn-bench.sh OUT_DIR
set -uo pipefail
out=${1:-out/nn-bench}
mkdir -p "$out"
[ -f .gl/prelude.sh ] && source .gl/prelude.sh
[ -f .deps/prelude.sh ] && source .deps/prelude.sh
data=""
for candidate in "${GPGPU_NN_DATA:-}" /usr/share/datasets/fashion-mnist "$PWD/data/fashion-mnist"; do
  if [ -n "$candidate" ] && [ -d "$candidate" ]; then data=$candidate; break; fi
done
[ -n "$data" ] || { echo "no Fashion-MNIST directory (set GPGPU_NN_DATA)"; exit 1; }
export GPGPU_NN_DATA=$data
start=$(date +%s)
bench_size=(--batches 64,256 --epochs 3 --tf-images 3200)
torch_size=(--batches 64 256 --epochs 3)
train_size=()
profile_size=(--train-limit 25600 --test-limit 1000)
plain=cnn
with_bn=cnn-bn
if [ -n "${NN_SMOKE:-}" ]; then
  plain=small
  with_bn=small
  bench_size=(--net small --batches 64 --epochs 2 --train-limit 640 --test-limit 500 --inference-batch 500 --tf-images 128)
  torch_size=(--batches 64 --epochs 2)
  train_size=(--train-limit 640 --test-limit 500)
  profile_size=(--train-limit 640 --test-limit 200)
  CNN_EPOCHS=${CNN_EPOCHS:-1}
  BN_EPOCHS=${BN_EPOCHS:-1}
fi
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }

build=${GPGPU_BUILD_DIR:-/tmp/gpgpu-nn-build}  # GPGPU_BUILD_DIR: use an existing build
if [ -z "${GPGPU_BUILD_DIR:-}" ]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build $build -j"$(nproc)" --target gpgpu_cli > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
fi
gpgpu=$build/tools/gpgpu
$gpgpu info > "$out/gpgpu-info.txt" 2>&1
stamp "built; $(grep -m1 renderer "$out/gpgpu-info.txt")"

python3 bench/nn/torch_cnn.py --data "$data" "${torch_size[@]}" --out "$out/torch-cnn.json" \
  > "$out/torch-cnn.log" 2>&1 || tail -20 "$out/torch-cnn.log"
stamp "pytorch done"; grep -E "epoch|steady" "$out/torch-cnn.log" | head -8
GPGPU_NN_VERBOSE=1 $gpgpu bench nn "${bench_size[@]}" --out "$out" \
  > "$out/bench-nn.log" 2> "$out/bench-nn.stderr" || tail -30 "$out/bench-nn.stderr"
cp "$out/nn/bench-nn.json" "$out/gpgpu-cnn.json" 2>/dev/null
stamp "gpgpu bench done"; grep -E "epoch|overhead" "$out/bench-nn.stderr" | head -12

python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, sys
out = sys.argv[1]
try:
    t = json.load(open(f"{out}/torch-cnn.json")); g = json.load(open(f"{out}/gpgpu-cnn.json"))
except Exception as e:
    print(f"no summary: {e}"); sys.exit(0)
print(f"# gpgpu::nn vs PyTorch, same run: {g['device']} (torch {t['torch']}, cuDNN {t['cudnn']}, TF32 off)\n")
print("| what | PyTorch | gpgpu (compute) | ratio gpgpu/PyTorch |\n|---|---|---|---|")
for tb, gb in zip(t["train"], g["train"]):
    print(f"| epoch of 60k, batch {tb['batch']} | {tb['steady_epoch_seconds']:.3f} s | "
          f"{gb['steady_epoch_seconds']:.3f} s | {gb['steady_epoch_seconds'] / tb['steady_epoch_seconds']:.2f}x |")
print(f"| classify 10k test images (batch {g['inference_batch']}) | {t['inference_steady_ms']:.2f} ms | "
      f"{g['inference_steady_ms']:.2f} ms | {g['inference_steady_ms'] / t['inference_steady_ms']:.2f}x |")
print(f"\ndispatch overhead (CPU, one ComputeKernel::run): {g['dispatch_overhead_us']:.2f} us")
if "transform_feedback" in g:
    f = g["transform_feedback"]
    print(f"transform-feedback backend, batch 64: {f['images']:.0f} images in {f['seconds']:.2f} s, "
          f"{f['extrapolated_epoch_seconds']:.1f} s per 60k epoch (extrapolated), {f['tflops']:.3f} TFLOP/s = "
          f"{100 * f['fraction_of_ceiling']:.1f}% of the {f['ceiling_tflops']} TFLOP/s vertex-stage ceiling")
PY

limit=()
[ -n "${TRAIN_TIMEOUT:-}" ] && limit=(timeout "$TRAIN_TIMEOUT")
${limit[@]+"${limit[@]}"} $gpgpu train --net $plain --epochs "${CNN_EPOCHS:-15}" ${train_size[@]+"${train_size[@]}"} --out "$out/cnn" -q > "$out/train-cnn.log" 2>&1 ||
  tail -5 "$out/train-cnn.log"
grep -E "^epoch" "$out/train-cnn.log" | tail -3
stamp "cnn: $(grep -E '^test accuracy' "$out/train-cnn.log")"
${limit[@]+"${limit[@]}"} $gpgpu train --net $with_bn --epochs "${BN_EPOCHS:-30}" ${train_size[@]+"${train_size[@]}"} --out "$out/cnn-bn" -q \
  > "$out/train-cnn-bn.log" 2>&1 || tail -5 "$out/train-cnn-bn.log"
grep -E "^epoch" "$out/train-cnn-bn.log" | tail -3
stamp "cnn-bn: $(grep -E '^test accuracy' "$out/train-cnn-bn.log")"

for batch in 64 256; do
  GPGPU_NN_PROFILE=1 $gpgpu train --net $plain --epochs 1 --batch $batch "${profile_size[@]}" \
    --no-plots -q --out "/tmp/nn-profile-$batch" > "$out/profile-$batch.log" 2>&1
done
stamp "profiles done"
grep -A14 "batch 64, training" "$out/profile-64.log" | head -16
