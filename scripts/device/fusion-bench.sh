#!/usr/bin/env bash
# On a GPU machine (H100/H200): the compute backend's Conv2D + pooling fusion
# (BackendOptions::fuse_pooling, docs/nn.md "Fused convolution and pooling") against the
# stages run apart and against PyTorch with CUDA graphs, in one run:
#  1. builds the gpgpu CLI (Release, -DGPGPU_CUDA=ON as the other device scripts; CUB off);
#  2. PyTorch: the plain "cnn" at batch 64 and 256 (3 epochs each, the first a warm-up) and
#     the 10k test images in one batch, training step and inference in CUDA graphs
#     (bench/nn/torch_cnn.py --cuda-graph --cudnn-benchmark, TF32 off);
#  3. gpgpu, the same figures (`gpgpu bench nn --batches 64,256 --epochs 3`: the median
#     epoch after the warm-up epoch, in which every GEMM is tuned; the inference median after
#     a warm-up pass), once per --fuse-pooling setting in FUSION_SETTINGS (default
#     "off auto": the stages apart, then fused; add "kernel loads" for the two backward forms
#     on their own, about 1 minute each).
# Writes logs and JSON under OUT and prints summary.md (also written there): per batch the
# steady epoch seconds of each setting and PyTorch's, each setting's ratio to PyTorch and
# to "off"; the 10k-image inference ms likewise; the test accuracy after each bench (the
# settings train the same arithmetic: they should agree to the last digit printed).
# Targets (issue 36): epoch <= 0.9x PyTorch at batch 64 and <= 1.0x at 256, inference <= 1.0x.
# About 3-4 minutes on an H200 with the build (FUSION_BUILD=0 with BUILD_DIR reuses a build).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# TORCH_PYTHON: the python that imports torch (default python3).
# Usage: bash scripts/device/fusion-bench.sh OUT [BUILD_DIR]
set -uo pipefail
out=${1:-out/fusion-bench}
build=${2:-/tmp/gpgpu-fusion-build}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
require_nn_data

if [ "${FUSION_BUILD:-1}" != 0 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA=ON -DGPGPU_BENCH_CUB=OFF \
    -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=ON \
    > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target gpgpu_cli > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
fi
gpgpu=$build/tools/gpgpu
$gpgpu info > "$out/gpgpu-info.txt" 2>&1
stamp "built; $(grep -m1 renderer "$out/gpgpu-info.txt")"

timeout 240 "${TORCH_PYTHON:-python3}" bench/nn/torch_cnn.py --data "$GPGPU_NN_DATA" --batches 64 256 --epochs 3 \
  --cuda-graph --cudnn-benchmark --out "$out/torch-graph.json" > "$out/torch-graph.log" 2>&1 ||
  tail -20 "$out/torch-graph.log"
stamp "pytorch (CUDA graphs) done"
# Tunings land in this run's own cache folder (not the user's); the settings share the tunings
# of the GEMMs they have in common (the dense layers'), each tunes its own convolutions.
export GPGPU_CACHE_DIR=$out/gpgpu-cache
for fusion in ${FUSION_SETTINGS:-off auto}; do
  timeout 200 $gpgpu bench nn --batches 64,256 --epochs 3 --fuse-pooling $fusion \
    --out "$out/nn-$fusion" > "$out/bench-nn-$fusion.log" 2> "$out/bench-nn-$fusion.stderr" ||
    tail -20 "$out/bench-nn-$fusion.stderr"
  stamp "gpgpu bench nn --fuse-pooling $fusion done"
done

python3 - "$out" ${FUSION_SETTINGS:-off auto} <<'PY' | tee "$out/summary.md"
import json, sys
out = sys.argv[1]
def load(path):
    try:
        return json.load(open(f"{out}/{path}"))
    except Exception as e:
        print(f"(no {path}: {e})")
        return None
settings = sys.argv[2:]  # as run
t = load("torch-graph.json")
g = {s: load(f"nn-{s}/nn/bench-nn.json") for s in settings}
have = [s for s in settings if g[s]]
if not t or not have:
    sys.exit(0)
dev = g[have[0]]["device"]
print(f"# Conv2D + pooling fused (compute backend) vs apart vs PyTorch CUDA graphs, same run: {dev}\n")
print("## Steady epoch of 60k images, seconds (ratio to PyTorch; to off)\n")
print("| batch | PyTorch graph | " + " | ".join(have) + " |")
print("|---:|---:|" + "---:|" * len(have))
for tb in t["train"]:
    ts = tb["steady_epoch_seconds"]
    cells = []
    off = next((x["steady_epoch_seconds"] for x in (g.get("off") or {}).get("train", []) if x["batch"] == tb["batch"]), None)
    for s in have:
        gb = next((x for x in g[s]["train"] if x["batch"] == tb["batch"]), None)
        if not gb:
            cells.append("-")
            continue
        e = gb["steady_epoch_seconds"]
        rel = f"; {e / off:.2f}x" if off else ""
        cells.append(f"{e:.3f} ({e / ts:.2f}x{rel})")
    print(f"| {tb['batch']} | {ts:.3f} | " + " | ".join(cells) + " |")
ti = t["inference_steady_ms"]
print(f"\n## 10k test images in one batch, ms (ratio to PyTorch; to off)\n")
print("| PyTorch graph | " + " | ".join(have) + " |")
print("|---:|" + "---:|" * len(have))
off = g["off"]["inference_steady_ms"] if g.get("off") else None
cells = []
for s in have:
    i = g[s]["inference_steady_ms"]
    rel = f"; {i / off:.2f}x" if off else ""
    cells.append(f"{i:.2f} ({i / ti:.2f}x{rel})")
print(f"| {ti:.2f} | " + " | ".join(cells) + " |")
print("\n## Test accuracy after each bench (the settings compute the same values)\n")
for s in have:
    print(f"- {s}: {100 * g[s]['test_accuracy_after_bench']:.2f}%")
print("\nTargets: epoch <= 0.9x PyTorch at batch 64, <= 1.0x at 256; inference <= 1.0x.")
PY
stamp "done"
