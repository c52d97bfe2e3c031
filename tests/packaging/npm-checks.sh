# shellcheck shell=bash
# The npm package's checks, sourced by test-packages.sh after deb-checks.sh (fail, ok).
# Each installs or inspects a gpgpu-<version>.tgz as a web developer would use it and prints
# "FAIL: ..." on the first problem.
npm_pages=$PWD/tests/packaging/npm  # the pages, the sample and the TypeScript users

# Exactly these files, under package/ as npm packs them: a missing one (the .wasm, the types)
# or a stray one fails.
check_npm_files() {
  local tgz=$1 expected got
  expected=$(printf 'package/%s\n' README.md gpgpu-module.js gpgpu-module.wasm gpgpu.d.ts \
             gpgpu.js gpgpu.mjs package.json | sort)
  got=$(tar -tzf "$tgz" | sort)
  local missing extra
  missing=$(comm -23 <(echo "$expected") <(echo "$got") | tr '\n' ' ')
  extra=$(comm -13 <(echo "$expected") <(echo "$got") | tr '\n' ' ')
  [ -z "$missing" ] || fail "$(basename "$tgz") lacks $missing"
  [ -z "$extra" ] || fail "$(basename "$tgz") holds files it should not: $extra"
  ok "$(basename "$tgz") holds the module, its .wasm, both entries, the types, README, package.json"
}

# `npm install ./gpgpu-<version>.tgz` into the empty folder DIR, offline (the package has no
# dependencies), then what Node and tsc see: name, version, "exports", "types".
check_npm_install() {
  local tgz=$1 version=$2 dir=$3
  mkdir -p "$dir"
  cp "$tgz" "$dir"/
  (cd "$dir" && npm install --offline --no-audit --no-fund --loglevel=error "./$(basename "$tgz")") ||
    fail "npm install ./$(basename "$tgz") failed in an empty folder"
  ok "npm install ./$(basename "$tgz") in an empty folder, offline"
  cp "$npm_pages"/* "$dir"/
  (cd "$dir" && node check_package.mjs "$version") || exit 1
  local log
  log=$(cd "$dir" && tsc -p tsconfig.json 2>&1) || { echo "$log"; fail "tsc rejects the package's types: ${log%%$'\n'*}"; }
  ok "tsc --strict compiles an ES-module user and a <script> user against the package's types"
}

# The sample pages of DIR (check_npm_install's) in headless Chromium on SwiftShader, as the
# browser suite runs them: tests/browser/run.mjs with puppeteer-core from npm's cache (filled
# by the browser suite's npm ci; the registry only when the cache lacks it).
check_npm_pages() {
  local dir=$1 runner=$2
  mkdir -p "$runner"
  cp tests/browser/package.json tests/browser/package-lock.json tests/browser/run.mjs "$runner"/
  (cd "$runner" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error) ||
    fail "puppeteer-core could not be installed (npm ci in $runner)"
  node "$runner/run.mjs" --root "$dir" --page /classic.html --page /module.html \
       --chromium "${GPGPU_CHROMIUM:-$(command -v chromium-headless-shell)}" --timeout 300 ||
    fail "the npm package's pages failed in headless Chromium"
  ok "the package's sample ran from node_modules by <script src> and by import, in headless Chromium"
}

# A copy of the package TGZ in DIR with HOW done to it: remove FILE, or version VERSION.
broken_npm() {
  local tgz=$1 dir=$2 how=$3 what=$4
  rm -rf "$dir"
  mkdir -p "$dir/tree"
  tar -xzf "$tgz" -C "$dir/tree"
  case $how in
    remove) rm "$dir/tree/package/$what" ;;
    version) sed -i "s/\"version\": \"[^\"]*\"/\"version\": \"$what\"/" "$dir/tree/package/package.json" ;;
    field) sed -i "/\"$what\":/d" "$dir/tree/package/package.json" ;;
  esac
  tar -czf "$dir/$(basename "$tgz")" -C "$dir/tree" package
  echo "$dir/$(basename "$tgz")"
}
