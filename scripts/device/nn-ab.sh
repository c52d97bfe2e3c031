#!/usr/bin/env bash
# On a GPU machine (H100/H200): the compute backend's CNN with the working tree against an
# earlier commit, built side by side and measured in one call (docs/nn.md, "What moved these
# figures"; results/h200/2026-11-29-conv-gemm):
#  1. builds the gpgpu CLI twice (Release, CUDA and CUB off): the working tree into
#     BUILD/new, the copy of the earlier commit in BASE_TREE into BUILD/base;
#  2. the working tree's autotuning log (GPGPU_NN_VERBOSE=1, GPGPU_CACHE=off, every GEMM tuned
#     at batch 256): each GEMM's candidate tilings with their fastest steady round
#     (tuning.txt);
#  3. PyTorch with CUDA graphs once (bench/nn/torch_cnn.py --cuda-graph --cudnn-benchmark,
#     TF32 off), then `gpgpu bench nn --batches 64,256 --epochs 3` for each build, each with
#     its own HOME so that each tunes its own GEMMs (bench-nn-new.json, bench-nn-base.json);
#  4. GPGPU_NN_PROFILE=1 for two epochs at batch 256 and 64 with each build: the median call
#     of each stage (profile-BUILD-BATCH.log).
# Prints summary.md (also written under OUT): steady epochs and 10k-image inference of both
# builds and PyTorch, the ratios new/base and new/PyTorch, and the profiles' largest stages.
# About 5 minutes on an H200.
# Before the call, here: git archive BASE | tar -x -C _base (the copy travels with the working
# tree; leave out its docs/results). Data: as scripts/device/common.sh finds it.
# Usage: bash scripts/device/nn-ab.sh OUT BASE_TREE [BUILD]
set -uo pipefail
out=${1:?usage: nn-ab.sh OUT BASE_TREE [BUILD]}
base_tree=${2:?usage: nn-ab.sh OUT BASE_TREE [BUILD]}
build=${3:-/tmp/gpgpu-nn-ab}
mkdir -p "$out"
out=$(cd "$out" && pwd)
source scripts/device/common.sh
device_preludes > /dev/null
start_clock
require_nn_data

config=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA=OFF -DGPGPU_BENCH_CUB=OFF
  -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_BENCH=ON)
per_build=$(($(nproc) / 2))
for side in new base; do
  src=.
  [ "$side" = base ] && src=$base_tree
  { cmake -S "$src" -B "$build/$side" "${config[@]}" > "$out/configure-$side.log" 2>&1 &&
    cmake --build "$build/$side" -j"$per_build" --target gpgpu_cli > "$out/build-$side.log" 2>&1; } &
done
wait
for side in new base; do
  [ -x "$build/$side/tools/gpgpu" ] || { tail -30 "$out/build-$side.log"; exit 1; }
done
stamp built

GPGPU_CACHE=off GPGPU_NN_VERBOSE=1 timeout 200 "$build/new/tools/gpgpu" train --backend compute \
  --net cnn --epochs 1 --batch 256 --train-limit 12800 --test-limit 1000 --autotune-seconds inf \
  --no-plots -q --out /tmp/nn-ab-tuning > "$out/tuning.log" 2>&1
grep -A9 "nn autotune" "$out/tuning.log" | grep -E "autotune|^ +[0-9.]+ us" |
  sed -E 's/ +\(rounds:.*//; s/nn autotune nn //; s/shared //g; s/thread //g' > "$out/tuning.txt"
stamp "tuning log"

timeout 240 "${TORCH_PYTHON:-python3}" bench/nn/torch_cnn.py --data "$GPGPU_NN_DATA" --batches 64 256 \
  --epochs 3 --cuda-graph --cudnn-benchmark --out "$out/torch-graph.json" > "$out/torch-graph.log" 2>&1 ||
  tail -20 "$out/torch-graph.log"
for side in new base; do
  HOME=/tmp/nn-ab-home-$side timeout 240 "$build/$side/tools/gpgpu" bench nn --batches 64,256 --epochs 3 \
    --out "$out/nn-$side" > "$out/bench-nn-$side.log" 2>&1 || tail -20 "$out/bench-nn-$side.log"
  cp "$out/nn-$side/nn/bench-nn.json" "$out/bench-nn-$side.json" 2>/dev/null
  for batch in 256 64; do
    HOME=/tmp/nn-ab-home-$side GPGPU_NN_PROFILE=1 timeout 120 "$build/$side/tools/gpgpu" train \
      --backend compute --net cnn --epochs 2 --batch $batch --no-plots -q --out /tmp/nn-ab-profile \
      > "$out/profile-$side-$batch.log" 2>&1
  done
  stamp "$side measured"
done

python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, re, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(f"{out}/{name}"))
    except Exception as e:
        print(f"(no {name}: {e})")
        return None
t, new, base = load("torch-graph.json"), load("bench-nn-new.json"), load("bench-nn-base.json")
if t and new and base:
    epochs = lambda r: {x["batch"]: x["steady_epoch_seconds"] for x in r["train"]}
    tn, nn_, bn = epochs(t), epochs(new), epochs(base)
    print("| | PyTorch, CUDA graph | base | new | new / base | new / PyTorch |")
    print("|---|---:|---:|---:|---:|---:|")
    for b in sorted(nn_):
        print(f"| epoch, batch {b} | {tn[b]:.4f} s | {bn[b]:.4f} s | {nn_[b]:.4f} s | "
              f"{nn_[b] / bn[b]:.3f} | {nn_[b] / tn[b]:.2f}x |")
    ti, ni, bi = t["inference_steady_ms"], new["inference_steady_ms"], base["inference_steady_ms"]
    print(f"| 10k-image inference | {ti:.2f} ms | {bi:.2f} ms | {ni:.2f} ms | {ni / bi:.3f} | "
          f"{ni / ti:.2f}x |")
    print(f"\ntest accuracy after the bench: base {base['test_accuracy_after_bench']:.4f}, "
          f"new {new['test_accuracy_after_bench']:.4f}")
for batch in (256, 64):
    print(f"\nlargest stages at batch {batch} (median us per call): base -> new")
    medians = {}
    for side in ("base", "new"):
        try:
            text = open(f"{out}/profile-{side}-{batch}.log").read()
        except OSError:
            continue
        part = text.split(f"batch {batch}, training")[-1]
        for us, stage in re.findall(r"([0-9.]+) us median  (layer .*|gather.*|softmax.*)", part):
            medians.setdefault(stage.strip(), {})[side] = float(us)
    ranked = sorted(medians.items(), key=lambda kv: -kv[1].get("new", 0))[:8]
    for stage, v in ranked:
        print(f"  {stage:45s} {v.get('base', float('nan')):8.1f} -> {v.get('new', float('nan')):8.1f}")
PY
stamp done
