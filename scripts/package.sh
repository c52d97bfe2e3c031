#!/usr/bin/env bash
# Builds every installable artifact of gpgpu into one folder (default out/packages):
#   libgpgpu-dev_<version>_<arch>.deb    headers, static libraries, the CMake package
#   gpgpu-tools_<version>_<arch>.deb     the gpgpu command and its man page
#   python3-gpgpu_<version>_<arch>.deb   the Python module for Debian's python3
#   gpgpu-<version>-<python tag>.whl     the same module as a wheel, for pip
#   gpgpu-<version>.tgz                  the browser build as an npm package (npm pack)
# The library is compiled once, in one Release build (GPGPU_PACKAGE_BUILD_DIR, default
# build/package): CPack packs that build, and the wheel's build step (setup.py) takes the same
# build through GPGPU_CMAKE_BUILD_DIR and only copies its module. ccache is used when present.
# The npm package is packed from a browser build (GPGPU_WEB_BUILD_DIR, default build/web), made
# only where none is there yet and otherwise brought up to date, never a second one: scripts/
# test.sh points it at the browser suite's.
# tests/packaging/test-packages.sh installs and checks what this makes.
# Usage (from anywhere): bash scripts/package.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-out/packages}")
build=$(realpath -m "${GPGPU_PACKAGE_BUILD_DIR:-build/package}")
python=${GPGPU_PACKAGE_PYTHON:-/usr/bin/python3}  # Debian's python3: the python3-gpgpu deb's

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

configure() {
  # /usr: GNUInstallDirs then picks Debian's multiarch libdir (lib/x86_64-linux-gnu).
  # The Python module installs where Debian's python3 imports packages from. No -Werror: the
  # -Werror build is scripts/test.sh's, and these flags are setup.py's too (ccache hits).
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
        -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=OFF \
        -DGPGPU_BUILD_TOOLS=ON -DGPGPU_CUDA=OFF -DGPGPU_PYTHON=ON -DGPGPU_WERROR=OFF \
        -DPython3_EXECUTABLE="$python" -DGPGPU_PYTHON_INSTALL_DIR=lib/python3/dist-packages \
        "${launcher[@]}" >/dev/null
}

package_debs() {
  rm -rf "$build/cpack"
  cpack --config "$build/CPackConfig.cmake" -B "$build/cpack" >/dev/null
  mv "$build"/cpack/*.deb "$out"/
}

package_wheel() {
  GPGPU_CMAKE_BUILD_DIR=$build "$python" -m build --no-isolation --wheel --outdir "$out" . \
    >"$build/wheel.log" 2>&1 || { cat "$build/wheel.log"; return 1; }
}

# The browser build's npm package: `npm pack` of its dist/ folder (package.json and README
# from js/npm/, the module, the API, the types; docs/browser.md) into "$out".
package_npm() {
  local web
  web=$(realpath -m "${GPGPU_WEB_BUILD_DIR:-build/web}")
  export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # emcc's optimiser needs Debian's acorn
  if [ ! -f "$web/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$web" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  fi
  grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$web/CMakeCache.txt" ||
    { echo "$web is not a Release build: no npm package from it"; return 1; }
  cmake --build "$web" -j"$(nproc)" --target gpgpu_web gpgpu_web_api >/dev/null
  npm pack "$web/dist" --pack-destination "$out" --loglevel=error >/dev/null
}

command -v help2man >/dev/null || { echo "help2man is missing (bash scripts/install-deps.sh)"; exit 1; }
configure
cmake --build "$build" -j"$(nproc)"
rm -rf "$out"
mkdir -p "$out"
package_debs
package_wheel
package_npm
ls -l "$out"
