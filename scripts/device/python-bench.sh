#!/usr/bin/env bash
# On a GPU machine (the H100 here): builds the Python module for that image's python3 (3.12,
# with NumPy, torch and CuPy), runs its pytest suite and example, then bench/python/overhead.py
# (the overhead of a Python k.run over the same C++ call, and a SAXPY round trip on 2^20
# float32 from NumPy against torch and CuPy in the same process). Logs and results go to OUT_DIR.
# The GL libraries and build dependencies the image lacks come from .gl/ and .deps/
# (shared/device/prepare-gl.sh and scripts/device/fetch-deps.sh, run beforehand).
# PYTHON overrides the interpreter; GPGPU_PYTHON_INCLUDE names a directory holding Python.h
# for it when its own headers are missing (a venv's base interpreter without -dev headers).
# Usage: bash scripts/device/python-bench.sh OUT_DIR
set -uo pipefail
out=${1:-out/python-bench}
mkdir -p "$out"
source scripts/device/common.sh
device_preludes
py=${PYTHON:-$(command -v python3)}
build=${GPGPU_PYTHON_BUILD:-/tmp/gpgpu-python-build}
{
  echo "interpreter: $py"
  "$py" -c 'import sys, sysconfig, numpy; print(sys.version); print("numpy", numpy.__version__); print("include", sysconfig.get_paths()["include"])'
  "$py" -c 'import pybind11; print("pybind11 (interpreter)", pybind11.__version__, pybind11.get_cmake_dir())' 2>&1 | tail -1
} | tee "$out/python-env.txt"
include_args=()
header_dir=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ ! -f "$header_dir/Python.h" ]; then
  if [ -n "${GPGPU_PYTHON_INCLUDE:-}" ] && [ -f "$GPGPU_PYTHON_INCLUDE/Python.h" ]; then
    echo "no Python.h in $header_dir; using $GPGPU_PYTHON_INCLUDE" | tee -a "$out/python-env.txt"
    include_args=(-DPython3_INCLUDE_DIR="$GPGPU_PYTHON_INCLUDE")
  else
    echo "no Python.h in $header_dir: set GPGPU_PYTHON_INCLUDE to a directory with it" | tee -a "$out/python-env.txt"
    exit 1
  fi
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_PYTHON=ON \
      -DPython3_EXECUTABLE="$py" "${include_args[@]}" -DGPGPU_BUILD_TESTS=OFF \
      -DGPGPU_BUILD_BENCH=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_TOOLS=OFF \
      > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep "gpgpu: Python" "$out/configure.log"
cmake --build "$build" --target gpgpu_python -j"$(nproc)" > "$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$out/build.log" | head -60; exit 1; }
echo "built $(ls "$build"/python/gpgpu/_gpgpu*.so)"
export PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# First up to the first failure with its whole traceback (a crash would otherwise hide every
# failure's reason), then the whole suite test by test.
"$py" -X faulthandler -m pytest -x -q -p no:cacheprovider --tb=long tests/python \
  > "$out/pytest-first-failure.log" 2>&1
"$py" -X faulthandler -m pytest -v -p no:cacheprovider -rs --tb=short tests/python \
  > "$out/pytest.log" 2>&1
echo "pytest: $(tail -1 "$out/pytest.log")"
(cd "$out" && "$py" "$OLDPWD/examples/python/notebook.py") > "$out/example.log" 2>&1
echo "example: exit $? ($(wc -l < "$out/example.log") lines)"
"$py" bench/python/overhead.py --out "$out" 2>&1 | tee "$out/bench.log" | tail -30
