#!/usr/bin/env bash
# The main job: installs dependencies, builds gpgpu (Release), shows the device, runs the
# examples and the matrix-multiplication speed test on the best device found.
# Usage (as root, from the repository root): bash scripts/main.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_BUILD_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc)"
bin=build/release
echo "== gpgpu info"
"$bin/tools/gpgpu" info
echo "== examples (files they write go to out/examples)"
mkdir -p out/examples
for example in "$PWD/$bin"/examples/*; do
  [ -x "$example" ] && [ -f "$example" ] || continue
  echo "-- $(basename "$example")"
  (cd out/examples && "$example")
done
if "$bin/tools/gpgpu" bench --help >/dev/null 2>&1; then
  echo "== speed test (matrix multiplication), results in out/bench"
  "$bin/tools/gpgpu" bench matmul --out out/bench
fi

# ---- The Python module (python/, docs/python.md) -------------------------------------------
# Installed where Debian's /usr/bin/python3 (the one with python3-numpy) imports it, then the
# notebook-style example runs against it (its results are checked against NumPy).
if [ -n "$(ls "$bin"/python/gpgpu/_gpgpu*.so 2>/dev/null)" ]; then
  echo "== Python module: install and run examples/python/notebook.py"
  cmake --install "$bin" --component python
  /usr/bin/python3 -c "import gpgpu; print('import gpgpu:', gpgpu.__file__)"
  notebook="$PWD/examples/python/notebook.py"
  (cd out/examples && /usr/bin/python3 "$notebook")
else
  echo "== Python module not built (pybind11 or python3-dev missing)"
fi
# ---- gpgpu::nn: a short CNN training run on this device --------------------------------
# The tutorial-shaped "cnn" net on all 60,000 Fashion-MNIST training images for 2 epochs,
# tested on all 10,000: without a GPU the default backend is the cpu one (about a minute
# and a half on 2 cores, as long as the "small" net's 2 x 6,000 images took on llvmpipe
# before it: 20x the images on a 14x larger net). Model, history, confusion matrix and PNG
# plots go to out/train. (docs/nn.md: the full runs, the backends and the H100 figures.)
echo "== gpgpu train: short CNN run (60,000 training images, 2 epochs), results in out/train"
"$bin/tools/gpgpu" train --net cnn --epochs 2 --out out/train --quiet
