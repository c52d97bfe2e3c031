#!/usr/bin/env bash
# On a GPU machine (the H100): gpgpu::nn against PyTorch in one run, and the accuracy runs.
#  1. builds the gpgpu CLI (Release);
#  2. (stage gpu) times the plain 2-conv net ("cnn") at batch 64 and 256, 3 epochs each (the
#     first a warm-up), and classifying the 10k test images: PyTorch (bench/nn/torch_cnn.py,
#     fp32, TF32 off) then gpgpu (`gpgpu bench nn`), plus the transform-feedback backend on
#     3200 images; writes summary.md with the ratios and the check that the compute backend's
#     epochs stay within 5% of 0.632 s / 0.433 s (batch 64 / 256, measured 2026-11-24);
#  3. (stage cpu) the cpu backend against PyTorch on the CPU, same run, same thread counts
#     (1, 2 and all cores: `gpgpu bench nn --skip-gpu --cpu-threads 1,2,all`, which runs
#     torch_cnn.py --device cpu --threads N after each of its own measurements): training
#     images/s at batch 64 on CPU_IMAGES (6400) images, inference images/s of the 10k test
#     images in batches of 1000; writes summary-cpu.md (targets: >= 0.67x PyTorch);
#  4. (stage train) trains "cnn" (target >= 92% test accuracy) and "cnn-bn" with augmentation
#     (>= 93.5%) with their recipes, keeping logs, history.json, confusion matrices, models
#     and plots;
#  5. (stage profile) profiles one short epoch per batch size (GPGPU_NN_PROFILE: time per
#     stage).
# TORCH_PYTHON: the python that imports torch (default python3).
# NN_STAGES picks stages (default "gpu cpu train profile"; e.g. NN_STAGES="gpu cpu" for the
# speed figures only, about 4 minutes).
# Logs, JSON and PNGs (when gnuplot exists; else the .dat/.gp files to draw them) go to
# OUT_DIR. About 7-9 minutes on an H100. Epoch counts: CNN_EPOCHS (15), BN_EPOCHS (30);
# TRAIN_TIMEOUT (seconds, default none) bounds each accuracy run (its epochs so far are kept).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# The GL libraries and build dependencies come from .gl/ and .deps/ (as gpu-suite.sh).
# NN_SMOKE=1 shrinks every step to a few hundred images (a check of the script itself, e.g. on
# llvmpipe; its figures mean nothing).
# Usage: bash scripts/device/nn-bench.sh OUT_DIR
#        NN_STAGES=cpu bash scripts/device/nn-bench.sh OUT_DIR   (no GPU needed)
set -uo pipefail
stages=" ${NN_STAGES:-gpu cpu train profile} "
wants() { [[ $stages == *" $1 "* ]]; }
out=${1:-out/nn-bench}
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
require_nn_data
start_clock
bench_size=(--batches 64,256 --epochs 3 --tf-images 3200)
torch_size=(--batches 64 256 --epochs 3)
train_size=()
profile_size=(--train-limit 25600 --test-limit 1000)
cpu_size=(--cpu-threads 1,2,all --cpu-images "${CPU_IMAGES:-6400}" --epochs 3)
plain=cnn
with_bn=cnn-bn
if [ -n "${NN_SMOKE:-}" ]; then
  plain=small
  with_bn=small
  bench_size=(--net small --batches 64 --epochs 2 --train-limit 640 --test-limit 500 --inference-batch 500 --tf-images 128)
  torch_size=(--batches 64 --epochs 2)
  train_size=(--train-limit 640 --test-limit 500)
  profile_size=(--train-limit 640 --test-limit 200)
  cpu_size=(--net small --cpu-threads 1,all --cpu-images 320 --epochs 2 --test-limit 500)
  CNN_EPOCHS=${CNN_EPOCHS:-1}
  BN_EPOCHS=${BN_EPOCHS:-1}
fi

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

if wants gpu; then
python3 bench/nn/torch_cnn.py --data "$GPGPU_NN_DATA" "${torch_size[@]}" --out "$out/torch-cnn.json" \
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
before = {64: 0.632, 256: 0.433}  # the compute backend's steady epochs, H100, 2026-11-24
for gb in g["train"]:
    if gb["batch"] in before:
        change = gb["steady_epoch_seconds"] / before[gb["batch"]] - 1
        print(f"compute epoch, batch {gb['batch']}: {gb['steady_epoch_seconds']:.3f} s against "
              f"{before[gb['batch']]} s before: {100 * change:+.1f}% "
              f"({'within' if abs(change) <= 0.05 else 'OUTSIDE'} the 5% target)")
PY
fi

if wants cpu; then
$gpgpu bench nn --skip-gpu "${cpu_size[@]}" --python "${TORCH_PYTHON:-python3}" --out "$out/cpu" \
  > "$out/bench-cpu.log" 2> "$out/bench-cpu.stderr" || tail -30 "$out/bench-cpu.stderr"
cp "$out/cpu/nn/bench-nn.json" "$out/gpgpu-cpu.json" 2>/dev/null
stamp "cpu comparison done"
python3 - "$out" <<'PY' | tee "$out/summary-cpu.md"
import json, sys
out = sys.argv[1]
try:
    g = json.load(open(f"{out}/gpgpu-cpu.json"))
except Exception as e:
    print(f"no cpu summary: {e}"); sys.exit(0)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "cpu")
print(f"# gpgpu::nn cpu backend vs PyTorch on the CPU, same run: {cpu}\n")
print(f"BLAS: {g.get('cpu_blas', '?')}\n")
print(f"{g['net']}, {g['cpu_images']} training images at batch 64 (median epoch after a warm-up), "
      f"{g['test_images']} test images in batches of {g['cpu_inference_batch']}\n")
print("| threads | train img/s gpgpu | PyTorch | ratio | inference img/s gpgpu | PyTorch | ratio |\n|---:|---:|---:|---:|---:|---:|---:|")
for r in g["cpu"]:
    t = r.get("torch") or {}
    gg = r["gpgpu"]
    tr = f"{t['train_images_per_second']:.0f}" if t else "-"
    ti = f"{t['inference_images_per_second']:.0f}" if t else "-"
    rt = f"{r['ratio_train']:.2f}x" if t else "-"
    ri = f"{r['ratio_inference']:.2f}x" if t else "-"
    print(f"| {r['threads']} | {gg['train_images_per_second']:.0f} | {tr} | {rt} | "
          f"{gg['inference_images_per_second']:.0f} | {ti} | {ri} |")
missing = [r.get("torch_missing") for r in g["cpu"] if r.get("torch") is None]
if missing:
    print(f"\nPyTorch: {missing[0]}")
PY
grep -E "epoch|torch|Error|error" "$out/bench-cpu.stderr" | tail -6
fi

if wants train; then
limit=()
[ -n "${TRAIN_TIMEOUT:-}" ] && limit=(timeout "$TRAIN_TIMEOUT")
${limit[@]+"${limit[@]}"} $gpgpu train --backend compute --net $plain --epochs "${CNN_EPOCHS:-15}" ${train_size[@]+"${train_size[@]}"} --out "$out/cnn" -q > "$out/train-cnn.log" 2>&1 ||
  tail -5 "$out/train-cnn.log"
grep -E "^epoch" "$out/train-cnn.log" | tail -3
stamp "cnn: $(grep -E '^test accuracy' "$out/train-cnn.log")"
${limit[@]+"${limit[@]}"} $gpgpu train --backend compute --net $with_bn --epochs "${BN_EPOCHS:-30}" ${train_size[@]+"${train_size[@]}"} --out "$out/cnn-bn" -q \
  > "$out/train-cnn-bn.log" 2>&1 || tail -5 "$out/train-cnn-bn.log"
grep -E "^epoch" "$out/train-cnn-bn.log" | tail -3
stamp "cnn-bn: $(grep -E '^test accuracy' "$out/train-cnn-bn.log")"
fi

if wants profile; then
for batch in 64 256; do
  GPGPU_NN_PROFILE=1 $gpgpu train --backend compute --net $plain --epochs 1 --batch $batch "${profile_size[@]}" \
    --no-plots -q --out "/tmp/nn-profile-$batch" > "$out/profile-$batch.log" 2>&1
done
stamp "profiles done"
grep -A14 "batch 64, training" "$out/profile-64.log" | head -16
fi
