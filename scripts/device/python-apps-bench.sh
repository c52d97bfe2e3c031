#!/usr/bin/env bash
# On a GPU machine: builds the Python module and runs bench/python/apps.py — training the "cnn"
# from float32 NumPy arrays (nn::ArrayTrainer: a read of the logits and a write of the gradient
# per step) against the same images as uint8 (the device-resident data set and nn::Trainer of
# `gpgpu train`), images/s and their ratio in one process; and the cost of a NetCDF record of
# the earth model at level 8 against a simulated day (when the image has libnetcdf; else the
# earth part reports NetCDF as unavailable). Results in OUT_DIR/python-apps.md.
# Usage: bash scripts/device/python-apps-bench.sh OUT_DIR     (about 3 minutes on an H200)
set -uo pipefail
out=${1:-out/python-apps}
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
py=${PYTHON:-$(command -v python3)}
build=${GPGPU_PYTHON_BUILD:-/tmp/gpgpu-python-apps-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_PYTHON=ON \
      -DPython3_EXECUTABLE="$py" -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_BENCH=OFF \
      -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TOOLS=OFF > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
grep -E "gpgpu: Python|earth_netcdf" "$out/configure.log"
cmake --build "$build" --target gpgpu_python -j"$(nproc)" > "$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
# Data: $GPGPU_NN_DATA, else /usr/share/datasets/fashion-mnist, else ./data/fashion-mnist.
find_nn_data
export PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
"$py" bench/python/apps.py --net cnn --limit 60000 --epochs 3 --level 8 --out "$out" 2>&1 |
  tee "$out/apps.log"
