#!/usr/bin/env bash
# The browser suite (ctest: browser_suite): builds the WebAssembly module and the page with
# Emscripten (emcmake), computes the native references with the native build's
# gpgpu_browser_reference, and runs tests/browser/pages/suite.html in headless Chromium on
# SwiftShader (run.mjs, puppeteer-core). Skipped, with the reason, where emcc,
# chromium-headless-shell or node is missing, or where puppeteer-core cannot be installed
# (no npm registry and no earlier install): exit status 77.
#
#   browser_test.sh SOURCE_DIR WORK_DIR REFERENCE_TOOL [suite]
#   browser_test.sh SOURCE_DIR WORK_DIR - bench                 (web/bench.html; WORK_DIR/bench.json)
#   browser_test.sh SOURCE_DIR WORK_DIR - screenshot OUT.png    (the page, for docs/)
set -euo pipefail
src=$1 work=$2 reference_tool=$3 mode=${4:-suite}
skip() { echo "SKIPPED: $*"; exit 77; }
stage_start=$SECONDS
stage() { echo "== $1 ($((SECONDS - stage_start)) s)"; stage_start=$SECONDS; }

command -v emcmake >/dev/null || skip "emcmake not found (apt-get install emscripten node-acorn)"
command -v node >/dev/null || skip "node not found (apt-get install nodejs npm)"
chromium=${GPGPU_CHROMIUM:-$(command -v chromium-headless-shell || true)}
[ -n "$chromium" ] || skip "chromium-headless-shell not found (apt-get install chromium-headless-shell)"
# emcc's JavaScript optimiser needs Debian's acorn (node-acorn).
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# The WebAssembly build: only the library, gpgpu::nn and the module (cmake/web.cmake).
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
emcmake cmake -S "$src" -B "$work/web" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=ON \
        "${launcher[@]}" >/dev/null
cmake --build "$work/web" -j"$(nproc)"
stage "the WebAssembly build"

# puppeteer-core from the npm registry, pinned by package-lock.json; an earlier install is
# reused when the registry cannot be reached.
# run.mjs goes beside its node_modules: ES modules resolve packages from where the script is.
mkdir -p "$work/node"
cp "$src/tests/browser/package.json" "$src/tests/browser/package-lock.json" \
   "$src/tests/browser/run.mjs" "$work/node/"
if ! (cd "$work/node" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error); then
  [ -d "$work/node/node_modules/puppeteer-core" ] ||
    skip "puppeteer-core could not be installed (npm ci failed: no registry?)"
  echo "npm ci failed; using the puppeteer-core installed before"
fi
stage "puppeteer-core"

run=(node "$work/node/run.mjs" --root "$work/web/site" --chromium "$chromium")
case "$mode" in
  suite)
    data=${GPGPU_NN_DATA:-/usr/share/datasets/fashion-mnist}
    [ -f "$data/t10k-images-idx3-ubyte.gz" ] ||
      skip "the Fashion-MNIST test set is not in $data (apt-get install dataset-fashion-mnist)"
    "$reference_tool" "$work/reference" --model "$src/web/models/fashion-small" --data "$data" \
                      --images "${GPGPU_NN_IMAGES:-2000}" --bounded "${GPGPU_NN_BOUNDED:-500}"
    stage "the native references"
    "${run[@]}" --mount "/tests=$src/tests/browser/pages" --mount "/reference=$work/reference" \
                --page /tests/suite.html --timeout 900
    stage "the browser suite"
    ;;
  bench)
    "${run[@]}" --page /bench.html --timeout 1800 --json "$work/bench.json" "${@:5}"
    ;;
  screenshot)
    "${run[@]}" --page "/index.html?quick" --screenshot "$5" --timeout 900
    ;;
esac
