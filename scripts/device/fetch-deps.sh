#!/usr/bin/env bash
# For a GPU machine whose image lacks gpgpu's build dependencies (the H100 image has cmake,
# ninja, g++, CUDA and OpenBLAS but not GoogleTest, CLI11, fmt, nlohmann-json or the ONNX
# library with protobuf, Vulkan's headers and loader):
# downloads their amd64 Debian packages into .deps/ (git-ignored) here, and writes
# .deps/prelude.sh, which unpacks them under /opt/gpgpu-deps there (never over /).
# Run here, from the repository root:   bash scripts/device/fetch-deps.sh
# There, first:                          source .deps/prelude.sh
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mkdir -p .deps /tmp/amd64-lists/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists'
apt-get -qq $o update >/dev/null 2>&1
cd .deps
rm -f ./*.deb
apt-get -qq $o download libgtest-dev libgmock-dev googletest libcli11-dev libfmt-dev libfmt9 \
    nlohmann-json3-dev libpng-dev libpng16-16 zlib1g-dev pybind11-dev \
    libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libvulkan-dev libvulkan1 2>&1 | grep -v 'unsandboxed' || true
cat > prelude.sh <<'PRE'
# Sourced on the GPU machine: makes gpgpu's build dependencies findable by CMake.
deps_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /opt/gpgpu-deps
for f in "$deps_here"/*.deb; do dpkg -x "$f" /opt/gpgpu-deps; done
# zlib1g-dev's libz.so points at Debian's libz.so.1.2.13, which the image does not have: link
# the image's own, and drop the static libz.a, which a shared object (the Python module) cannot use.
zdir=/opt/gpgpu-deps/usr/lib/x86_64-linux-gnu
if [ -e /lib/x86_64-linux-gnu/libz.so.1 ]; then
  ln -sf /lib/x86_64-linux-gnu/libz.so.1 "$zdir/libz.so"
  rm -f "$zdir/libz.a"
fi
export CMAKE_PREFIX_PATH=/opt/gpgpu-deps/usr:/opt/gpgpu-deps/usr/lib/x86_64-linux-gnu/cmake:/opt/gpgpu-deps/usr/share/cmake${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export LD_LIBRARY_PATH=/opt/gpgpu-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CPATH=/opt/gpgpu-deps/usr/include${CPATH:+:$CPATH}
PRE
ls -1
