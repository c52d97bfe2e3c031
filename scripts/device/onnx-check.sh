#!/usr/bin/env bash
# The ONNX targets, in one run (docs/onnx.md cites its summary):
#  1. builds the Python module (Release) for PYTHON (default python3: on the GPU machine the
#     one with torch, onnx and onnxruntime);
#  2. trains a PyTorch CNN with BatchNorm, padding and a stride-2 convolution on
#     Fashion-MNIST for EPOCHS (2) epochs, classifies the 10,000 test images in PyTorch (fp32,
#     TF32 off) and exports the network with torch.onnx.export (opset OPSET, 13); where torch
#     is not importable (llvmpipe here), the same network is written by onnx.helper with
#     random weights instead (ONNX_CHECK_IMAGES test images, default all);
#  3. the float64 truth of the ONNX graph and its float32 bound per logit
#     (tests/python/onnx_reference.py), in a process without gpgpu;
#  4. gpgpu (a process without the onnx package): load_onnx, the logits on each of BACKENDS
#     (compute,cpu), save_onnx and the export read back; 10k-image inference of the imported
#     model (BatchNorm folded, and kept) against the same network built natively from
#     gpgpu's own files (native/, the same weights), medians of ROUNDS (7) rounds;
#  5. onnx.checker on the export and its float64 truth; summary.md: argmax agreement with
#     PyTorch (target >= 99.9%), logits within the float32 bound, the re-import identical, the
#     speed ratio (target: within 5% of native).
# Results: OUT_DIR/summary.md and OUT_DIR/work (the models, logits, gpgpu.json, logs). On the
# GPU machine about 3-4 minutes, most of it the build (GPGPU_PYTHON_BUILD: reuse a build).
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
# The GL libraries and build dependencies come from .gl/ and .deps/ (as gpu-suite.sh; the ONNX
# library and protobuf are among scripts/device/fetch-deps.sh's packages).
# GPGPU_PYTHON_INCLUDE: a directory with Python.h when the interpreter's own is missing.
# Usage: bash scripts/device/onnx-check.sh OUT_DIR
#   here, on llvmpipe:  GPGPU_PYTHON_BUILD=build/rel PYTHON=/usr/bin/python3 \
#                       ONNX_CHECK_IMAGES=2000 ROUNDS=3 bash scripts/device/onnx-check.sh out/onnx-check
set -uo pipefail
out=$(realpath -m "${1:-out/onnx-check}")
work=$out/work
mkdir -p "$work"
source scripts/device/common.sh
device_preludes
py=${PYTHON:-$(command -v python3)}
here=scripts/device/onnx_check
start_clock
require_nn_data

build=$(realpath -m "${GPGPU_PYTHON_BUILD:-/tmp/gpgpu-onnx-build}")
if [ -z "${GPGPU_PYTHON_BUILD:-}" ]; then
  include_args=()
  [ -n "${GPGPU_PYTHON_INCLUDE:-}" ] && include_args=(-DPython3_INCLUDE_DIR="$GPGPU_PYTHON_INCLUDE")
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_PYTHON=ON -DGPGPU_ONNX=ON \
        -DPython3_EXECUTABLE="$py" ${include_args[@]+"${include_args[@]}"} -DGPGPU_BUILD_TESTS=OFF \
        -DGPGPU_BUILD_BENCH=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TOOLS=OFF \
        > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" --target gpgpu_python -j"$(nproc)" > "$out/build.log" 2>&1 ||
    { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
fi
stamp "module built ($build)"

if "$py" -c "import torch" 2>/dev/null; then
  "$py" $here/torch_model.py "$GPGPU_NN_DATA" "$work" --epochs "${EPOCHS:-2}" --opset "${OPSET:-13}" \
    2>&1 | tee "$work/torch.log"
  [ -f "$work/model.onnx" ] || exit 1
else
  echo "torch is not importable: the network from onnx.helper, random weights"
  "$py" $here/helper_model.py "$GPGPU_NN_DATA" "$work" --images "${ONNX_CHECK_IMAGES:-0}" || exit 1
fi
stamp "model written"
# The float64 truth needs the onnx package; where this Python lacks it, the truth and the
# summary are left to a machine that has it (the same two commands, on OUT_DIR/work).
has_onnx=1
"$py" -c "import onnx" 2>/dev/null || has_onnx=0
if [ $has_onnx = 1 ]; then
  "$py" $here/reference.py "$work" "$work/model.onnx" truth > "$work/reference.log" 2>&1 ||
    { tail -20 "$work/reference.log"; exit 1; }
  stamp "float64 truth done"
fi
PYTHONPATH="$build/python" "$py" $here/gpgpu_check.py "$work" --backends "${BACKENDS:-compute,cpu}" \
  --rounds "${ROUNDS:-7}" 2>&1 | tee "$work/gpgpu.log"
[ -f "$work/gpgpu.json" ] || exit 1
stamp "gpgpu done"
if [ $has_onnx = 0 ]; then
  echo "no onnx package for $py: run where it is importable (x.npy from fashion.py):"
  echo "  python3 $here/reference.py WORK WORK/model.onnx truth"
  echo "  python3 $here/reference.py WORK WORK/exported.onnx truth-exported --check --limit 1000"
  echo "  python3 $here/summary.py WORK OUT_DIR"
  exit 0
fi
"$py" $here/reference.py "$work" "$work/exported.onnx" truth-exported --check --limit 1000 \
  2>&1 | tee "$work/reference-exported.log" | head -3
"$py" $here/summary.py "$work" "$out"
stamp "summary in $out/summary.md"
