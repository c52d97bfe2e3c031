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
