#!/usr/bin/env bash
# On a GPU machine (H100/H200): what recorded sequences (gpgpu::Sequence, docs/sequences.md)
# change, measured in one run, with the same-run references:
#  1. builds the gpgpu CLI (Release, -DGPGPU_CUDA=ON: the CUDA-graph reference of
#     `gpgpu bench dispatch`; CUB left out to keep the build short);
#  2. `gpgpu bench dispatch`: CPU us per dispatch through ComputeKernel::run and through a
#     replay, GPU us per dependent dispatch, beside CUDA stream launches and a CUDA-graph replay
#     of the same tiny kernels;
#  3. the plain "cnn" epoch at batch 64 and 256 (3 epochs each, the first a warm-up) and the
#     10k-image inference, with replay (the default) and without (`--no-replay`), and PyTorch
#     with the whole training step and the inference in CUDA graphs (bench/nn/torch_cnn.py
#     --cuda-graph --cudnn-benchmark, TF32 off);
#  4. earth steps/s at levels 6 and 8: `gpgpu earth bench --variants default,direct` (direct:
#     every dispatch run on its own, i.e. before sequences), with the fraction of the device
#     copy bandwidth.
# Writes everything under OUT (logs, JSON) and prints summary.md (also written there):
#   dispatch: run and replay CPU us/dispatch, their ratio, GPU us per dependent dispatch, CUDA
#             graph's CPU and GPU us per kernel, and the ratios against it;
#   cnn:      steady epoch seconds per batch (replay, no replay, PyTorch CUDA graph) and the
#             ratios gpgpu/PyTorch; inference ms likewise;
#   earth:    steps/s at levels 6 and 8 (replayed, direct, their ratio) and x copy bandwidth.
# About 5-7 minutes on an H200 with the build (BUILD_DIR=... reuses a build: DISPATCH_BUILD=0).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# TORCH_PYTHON: the python that imports torch (default python3).
# Usage: bash scripts/device/dispatch-bench.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/dispatch-bench}
build=${2:-/tmp/gpgpu-dispatch-build}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
require_nn_data

if [ "${DISPATCH_BUILD:-1}" != 0 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA=ON -DGPGPU_BENCH_CUB=OFF \
    -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=ON \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target gpgpu_cli > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
fi
gpgpu=$build/tools/gpgpu
$gpgpu info > "$out/gpgpu-info.txt" 2>&1
stamp "built; $(grep -m1 renderer "$out/gpgpu-info.txt")"

timeout 120 $gpgpu bench dispatch --out "$out" > "$out/bench-dispatch.txt" 2> "$out/bench-dispatch.stderr" ||
  tail -20 "$out/bench-dispatch.stderr"
cat "$out/bench-dispatch.txt"
stamp "bench dispatch done"

timeout 240 "${TORCH_PYTHON:-python3}" bench/nn/torch_cnn.py --data "$GPGPU_NN_DATA" --batches 64 256 --epochs 3 \
  --cuda-graph --cudnn-benchmark --out "$out/torch-graph.json" > "$out/torch-graph.log" 2>&1 ||
  tail -20 "$out/torch-graph.log"
stamp "pytorch (CUDA graphs) done"
for mode in replay no-replay; do
  flag=()
  [ "$mode" = no-replay ] && flag=(--no-replay)
  timeout 240 $gpgpu bench nn --batches 64,256 --epochs 3 ${flag[@]+"${flag[@]}"} --out "$out/nn-$mode" \
    > "$out/bench-nn-$mode.log" 2> "$out/bench-nn-$mode.stderr" || tail -20 "$out/bench-nn-$mode.stderr"
  grep -E "epoch|inference" "$out/bench-nn-$mode.stderr" | tail -4
  stamp "gpgpu bench nn ($mode) done"
done

timeout 240 $gpgpu earth bench --levels 6,8 --variants default,direct --seconds 3 \
  --json "$out/earth-bench.json" > "$out/earth-bench.txt" 2>&1 || tail -20 "$out/earth-bench.txt"
cat "$out/earth-bench.txt"
stamp "earth bench done"

python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, sys
out = sys.argv[1]
def load(path):
    try:
        return json.load(open(f"{out}/{path}"))
    except Exception as e:
        print(f"(no {path}: {e})")
        return None
d = load("dispatch/bench-dispatch.json")
if d:
    cpu = {r["way"]: r["CPU us/dispatch"] for r in d["rows"]}
    gpu = {r["way"]: r["GPU us/dispatch"] for r in d["rows"]}
    us = lambda v: "-" if v is None else f"{v:.3f}"
    print(f"# Recorded sequences, same run: {d['device']}\n")
    print(f"## gpgpu bench dispatch (per dispatch; {d['notes'][0]})\n")
    print("| way | CPU us | GPU us |\n|---|---:|---:|")
    for way in cpu:
        print(f"| {way} | {us(cpu[way])} | {us(gpu[way])} |")
    run, replay = "ComputeKernel::run, dependent", "Sequence::replay, dependent"
    print(f"\nreplay / run CPU: {cpu[replay] / cpu[run]:.3f} "
          f"(target: replay <= 1.0 us; replay = {cpu[replay]:.3f} us)")
    graph = "CUDA graph replay, dependent"
    if graph in cpu:
        print(f"replay / CUDA graph: CPU {cpu[replay] / cpu[graph]:.2f}x, "
              f"GPU per dependent dispatch {gpu[replay] / gpu[graph]:.2f}x")
    else:
        print(d["notes"][1])
t = load("torch-graph.json")
g = {m: load(f"nn-{m}/nn/bench-nn.json") for m in ("replay", "no-replay")}
if t and g["replay"]:
    print("\n## CNN (plain cnn, Fashion-MNIST, Adam), steady epoch seconds\n")
    print("| batch | gpgpu replay | gpgpu no replay | PyTorch CUDA graph | replay/PyTorch | no-replay/PyTorch |")
    print("|---:|---:|---:|---:|---:|---:|")
    nr = {x["batch"]: x for x in (g["no-replay"] or {}).get("train", [])}
    for tb in t["train"]:
        gb = next((x for x in g["replay"]["train"] if x["batch"] == tb["batch"]), None)
        if not gb:
            continue
        n = nr.get(tb["batch"])
        ts = tb["steady_epoch_seconds"]
        print(f"| {tb['batch']} | {gb['steady_epoch_seconds']:.3f} | "
              f"{n['steady_epoch_seconds'] if n else float('nan'):.3f} | {ts:.3f} | "
              f"{gb['steady_epoch_seconds'] / ts:.2f}x | "
              f"{(n['steady_epoch_seconds'] / ts) if n else float('nan'):.2f}x |")
    ti = t["inference_steady_ms"]
    gi = g["replay"]["inference_steady_ms"]
    ni = g["no-replay"]["inference_steady_ms"] if g["no-replay"] else float("nan")
    print(f"\n10k-image inference (batch {g['replay']['inference_batch']}): gpgpu replay {gi:.2f} ms, "
          f"no replay {ni:.2f} ms, PyTorch CUDA graph {ti:.2f} ms: {gi / ti:.2f}x (no replay {ni / ti:.2f}x)")
    print(f"dispatch overhead per ComputeKernel::run (bench nn's probe): {g['replay']['dispatch_overhead_us']:.2f} us")
e = load("earth-bench.json")
if e:
    rows = e if isinstance(e, list) else e.get("rows", e)
    print("\n## earth steps/s (case 2)\n")
    print("| level | replayed steps/s | direct steps/s | ratio | replayed x copy | direct x copy |")
    print("|---:|---:|---:|---:|---:|---:|")
    by = {}
    for r in rows:
        by.setdefault(r["level"], {})[r["variant"]] = r
    for level, v in sorted(by.items()):
        a, b = v.get("default"), v.get("direct")
        if a and b:
            print(f"| {level} | {a['steps_per_s']:.1f} | {b['steps_per_s']:.1f} | "
                  f"{a['steps_per_s'] / b['steps_per_s']:.2f}x | {a['fraction_of_cuda_copy']:.2f} | "
                  f"{b['fraction_of_cuda_copy']:.2f} |")
PY
stamp "done"
