#!/usr/bin/env bash
# Installs the Debian 12 packages gpgpu needs to build, test and run (as root).
# Mesa's EGL + llvmpipe are included so that everything runs without a GPU; on a machine
# with a GPU, its vendor's EGL driver (e.g. NVIDIA's) is picked up by libglvnd as well.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake ninja-build pkg-config git
  libegl-dev libgles-dev libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri   # EGL/GLES + llvmpipe
  libgtest-dev libgmock-dev libbenchmark-dev                             # tests, benchmarks
  libcli11-dev libfmt-dev nlohmann-json3-dev                             # CLI, text, JSON
  libopenblas-dev                                                        # CPU SGEMM anchor
  gnuplot-nox libpng-dev                                                 # charts, pictures
  clang libclang-rt-14-dev                                               # libFuzzer, sanitizers
  libtbb-dev zlib1g-dev                                                  # parallel CPU references, gzip
  pybind11-dev python3-dev python3-numpy python3-pytest                 # the Python module
  dataset-fashion-mnist                                                  # the CNN's default data
  help2man file python3-build python3-setuptools python3-wheel          # packages: man page,
  python3-venv python3-pip ccache                                        # CPack's ELF test, wheel
  openmpi-bin libopenmpi-dev mpi-default-dev                             # gpgpu::mpi, gpgpu-mpi
  glslang-tools                                                          # checks the subgroup GLSL
  emscripten node-acorn chromium-headless-shell                          # the browser build, tests
  node-typescript                                                        # checks the npm package's types
  mesa-vulkan-drivers                                                    # zink over lavapipe: a second GL driver
  libvulkan-dev                                                          # large Buffers' memory from Vulkan
  libonnx-dev libprotobuf-dev python3-onnx                               # ONNX models in and out
  libnetcdf-dev netcdf-bin python3-netcdf4 python3-xarray                # the earth model's NetCDF output
  doxygen                                                                # the API reference
  graphviz                                                               # docs/architecture/layers.svg
  python3-matplotlib                                                     # the Python examples' plots
)
# Optional: ffmpeg turns the earth simulator's frames into an MP4 (skipped when absent).
optional=(ffmpeg)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  [ "${GPGPU_SKIP_OPTIONAL:-0}" = 1 ] && continue
  apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 || echo "optional package $p not installed"
done
# npm for the browser tests (puppeteer-core): Debian's, unless one came with the installed
# node already (NodeSource's nodejs bundles npm and conflicts with Debian's npm package).
if ! command -v npm >/dev/null; then
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null ||
    echo "npm could not be installed: the browser tests will be skipped"
fi
echo "dependencies: all installed"
