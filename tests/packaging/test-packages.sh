#!/usr/bin/env bash
# Installs every artifact of scripts/package.sh into a clean place and uses it, as a user
# would; fails when a package lacks a file, a dependency or the project's version.
#   all .debs      apt resolves their dependencies for an empty system (apt install -s).
#   libgpgpu-dev   unpacked into a throw-away root (dpkg -x); tests/consumer built against it
#                  alone (CMAKE_PREFIX_PATH) and run. Its Depends must name the package of
#                  every file the consumer's compile and link took from the system.
#   gpgpu-tools    unpacked there too: `gpgpu --version`, `gpgpu info`, `gpgpu run` on random
#                  .npy inputs checked against float64; the man page. Its Depends must name
#                  the package of every shared library the command links.
#   python3-gpgpu  the README's Python example run from the unpacked root.
#   the wheel      installed into a fresh venv (--system-site-packages for NumPy); its
#                  METADATA (Version, Requires-Dist) and files checked; the README's example.
#                  Then `pip install --no-build-isolation .`, which builds it afresh (ccache).
#   the npm package  its files listed; `npm install ./gpgpu-<version>.tgz` into an empty folder,
#                  offline; Node's resolution ("exports", "types") and the version checked; tsc
#                  --strict compiles TypeScript users of it; its sample pages, loading it from
#                  node_modules by <script src> and by import, run in headless Chromium
#                  (npm-checks.sh, tests/packaging/npm/).
# Versions are checked against CMakeLists.txt's project(gpgpu VERSION ...). Last, broken
# copies of the packages (a file, a dependency, the version, numpy, the types removed) must be refused
# by the same checks, which proves they can fail.
# Usage: bash tests/packaging/test-packages.sh [PACKAGES_DIR]
#   (without PACKAGES_DIR it runs scripts/package.sh first, into out/packages)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/packaging/deb-checks.sh
source tests/packaging/npm-checks.sh

packages=${1:-}
if [ -z "$packages" ]; then
  packages=out/packages
  bash scripts/package.sh "$packages"
fi
packages=$(realpath "$packages")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(project_version)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
echo "packages in $packages; the project's version is $version"

dev=$packages/libgpgpu-dev_${version}_${arch}.deb
tools=$packages/gpgpu-tools_${version}_${arch}.deb
pydeb=$packages/python3-gpgpu_${version}_${arch}.deb
wheels=("$packages"/gpgpu-"$version"-*.whl)
[ -f "${wheels[0]}" ] || fail "no wheel gpgpu-$version-*.whl in $packages"
wheel=${wheels[0]}

root=$work/root
for deb in "$dev" "$tools" "$pydeb"; do
  check_deb_fields "$deb" "$version" "$arch"
  dpkg -x "$deb" "$root"
done

check_apt_installs_clean "$work/status" "$dev" "$tools" "$pydeb"

check_dev_files "$dev" "$multiarch"
check_deb_declares "$dev" libegl-dev libopengl-dev libgles-dev libfmt-dev zlib1g-dev libpng-dev
consumer_build "$root/usr" "$work/consumer"
check_deb_covers_used_files "$dev" "$work/consumer"

check_tools_files "$tools"
check_deb_declares "$tools" libegl-mesa0 libgl1-mesa-dri
check_deb_recommends "$tools" libopenblas0
check_deb_covers_needed_libraries "$tools" "$root/usr/bin/gpgpu"
check_tools_run "$root/usr/bin/gpgpu" "$version" "$work/run"
check_man_page "$root/usr/share/man/man1/gpgpu.1.gz" "$version"

check_python_deb_files "$pydeb"
check_deb_declares "$pydeb" python3 python3-numpy libegl-mesa0 libgl1-mesa-dri
check_deb_covers_needed_libraries "$pydeb" "$root"/usr/lib/python3/dist-packages/gpgpu/_gpgpu*.so
(cd "$work" && PYTHONPATH=$root/usr/lib/python3/dist-packages \
  check_python_module /usr/bin/python3 "$root/usr/lib/python3/dist-packages/gpgpu" "$version")

check_wheel "$wheel" "$version"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --no-index --no-cache-dir --quiet "$wheel"
echo "ok: the wheel installs into a fresh venv (NumPy from the system, no index)"
(cd "$work" && check_python_module "$work/venv/bin/python" "$work/venv/lib" "$version")

# The wheel's own build, as from a fresh clone: `pip install --no-build-isolation .` runs
# CMake itself (setup.py); ccache turns its compiles into hits of package.sh's.
/usr/bin/python3 -m venv --system-site-packages "$work/venv2"
CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache \
  "$work/venv2/bin/pip" install --no-build-isolation --no-index --no-cache-dir --quiet . ||
  fail "pip install --no-build-isolation . failed"
(cd "$work" && check_python_module "$work/venv2/bin/python" "$work/venv2/lib" "$version")

npm_tgz=$packages/gpgpu-$version.tgz
[ -f "$npm_tgz" ] || fail "no npm package gpgpu-$version.tgz in $packages"
check_npm_files "$npm_tgz"
check_npm_install "$npm_tgz" "$version" "$work/npm"
check_npm_pages "$work/npm" "$work/npm-runner"

echo "== broken packages must be refused by the same checks"
refuse "a libgpgpu-dev without libgpgpu_nn.a" libgpgpu_nn.a \
  check_dev_files "$(broken_deb "$dev" "$work/b1" remove "usr/lib/$multiarch/libgpgpu_nn.a")" "$multiarch"
refuse "a libgpgpu-dev whose Depends lost libfmt-dev" "Depends lacks libfmt9" \
  check_deb_covers_used_files "$(broken_deb "$dev" "$work/b2" depends libfmt-dev)" "$work/consumer"
refuse "a gpgpu-tools whose Depends lost libpng16-16" "Depends lacks libpng16-16" \
  check_deb_covers_needed_libraries "$(broken_deb "$tools" "$work/b3" depends libpng16-16)" "$root/usr/bin/gpgpu"
refuse "a gpgpu-tools of another version" "Version 0.0.1" \
  check_deb_fields "$(broken_deb "$tools" "$work/b4" version 0.0.1)" "$version" "$arch"
refuse "a wheel without Requires-Dist: numpy" numpy \
  check_wheel "$(broken_wheel "$wheel" "$work/b5")" "$version"
refuse "an npm package without its .wasm" "lacks package/gpgpu-module.wasm" \
  check_npm_files "$(broken_npm "$npm_tgz" "$work/b6" remove gpgpu-module.wasm)"
refuse "an npm package without its types" "lacks package/gpgpu.d.ts" \
  check_npm_files "$(broken_npm "$npm_tgz" "$work/b7" remove gpgpu.d.ts)"
refuse 'an npm package whose package.json lost "types"' 'no "types"' \
  check_npm_install "$(broken_npm "$npm_tgz" "$work/b8" field types)" "$version" "$work/b8/install"
refuse "an npm package of another version" "version 0.0.1" \
  check_npm_install "$(broken_npm "$npm_tgz" "$work/b9" version 0.0.1)" "$version" "$work/b9/install"
echo "== all packages install and work"
