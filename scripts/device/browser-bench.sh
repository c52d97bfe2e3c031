#!/usr/bin/env bash
# The browser benchmark (web/bench.html: TF and fragment matmul and SAXPY against plain
# JavaScript) in headless Chromium on a GPU machine, trying to reach its GPU. The image has no
# Chromium and reaches no network, and a device call carries at most 64 MiB: Chromium's
# Debian packages (about 106 MiB) travel in two parts, one call each. Python drives the page
# there (browser_report_server.py; no node needed).
#
# Here, once (from the repository root; needs emscripten for the page):
#   bash scripts/device/browser-bench.sh fetch
#     -> .browser/site (the built page), .browser/part1, .browser/part2 (the .debs)
# There, three calls (the machine stays warm in between, keeping /opt/gpgpu-chromium):
#   run(command="bash scripts/device/browser-bench.sh unpack 1", carry=[".browser/part1"])
#   run(command="bash scripts/device/browser-bench.sh unpack 2", carry=[".browser/part2"])
#   run(command="bash scripts/device/browser-bench.sh bench $OUT", carry=[".browser/site", ".gl"])
# `bench` tries, in order, Chromium's ways to a GPU without a display (ANGLE on Vulkan, ANGLE
# on EGL, Chromium's own EGL), reports for each the renderer the page got and whether it is
# the GPU, runs the benchmark on the first that is, and on SwiftShader for comparison. It
# says plainly when Chromium does not start (the missing libraries, from ldd) or reaches no
# GPU. Results: OUT/bench-<mode>.json and OUT/browser-bench.log.
set -uo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
stage=${1:?usage: browser-bench.sh fetch | unpack N | bench OUT_DIR}
root=/opt/gpgpu-chromium

case $stage in
  fetch)
    set -e
    mkdir -p .browser /tmp/amd64-lists/partial
    exclude=$(git rev-parse --git-path info/exclude)
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.browser/' "$exclude" 2>/dev/null || echo '/.browser/' >> "$exclude"
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64-lists'
    apt-get -qq $o update >/dev/null 2>&1
    deps=$(apt-cache $o depends chromium-headless-shell chromium-common 2>/dev/null |
           awk '/Depends:/ {print $2}' | grep -v '^<' | grep -vx 'libc6\|libgcc-s1' | sort -u)
    rm -rf .browser/debs .browser/part1 .browser/part2
    mkdir -p .browser/debs .browser/part1 .browser/part2
    (cd .browser/debs && apt-get -qq $o download chromium-headless-shell chromium-common $deps \
       2>&1 | grep -v unsandboxed || true)
    # Two parts: the shell itself (61 MiB) alone, and the rest (under 50 MiB).
    part1=0
    for deb in $(ls -S .browser/debs/*.deb); do
      size=$(stat -c %s "$deb")
      if [ $((part1 + size)) -lt $((60 << 20)) ]; then
        mv "$deb" .browser/part1/
        part1=$((part1 + size))
      else
        mv "$deb" .browser/part2/
      fi
    done
    rmdir .browser/debs
    export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
    emcmake cmake -S . -B build/web -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build/web
    rm -rf .browser/site && cp -r build/web/site .browser/site
    du -sh .browser/part1 .browser/part2 .browser/site
    echo "ready: carry .browser/part1, then .browser/part2, then .browser/site (see the header)"
    ;;
  unpack)
    part=.browser/part${2:?which part}
    [ -d "$part" ] || { echo "$part was not carried"; exit 1; }
    mkdir -p "$root"
    for deb in "$part"/*.deb; do dpkg -x "$deb" "$root"; done
    echo "unpacked $(ls "$part" | wc -l) packages of $part into $root"
    ;;
  bench)
    out=${2:?usage: browser-bench.sh bench OUT_DIR}
    mkdir -p "$out"
    log=$out/browser-bench.log
    exec > >(tee "$log") 2>&1
    [ -f .gl/prelude.sh ] && source .gl/prelude.sh >/dev/null
    shell=$root/usr/lib/chromium/chromium-headless-shell
    [ -x "$shell" ] || shell=$(ls "$root"/usr/lib/chromium*/headless_shell 2>/dev/null | head -1)
    if [ -z "$shell" ] || [ ! -x "$shell" ]; then
      echo "RESULT: no Chromium here: unpack parts 1 and 2 first (the machine must stay warm)"
      exit 1
    fi
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/chromium${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    missing=$(ldd "$shell" | awk '/not found/ {print $1}' | tr '\n' ' ')
    if [ -n "$missing" ]; then
      echo "RESULT: Chromium cannot start here: missing libraries: $missing"
      exit 1
    fi
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1 &&
      export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
    common=(--no-sandbox --ignore-gpu-blocklist --enable-gpu)
    declare -A modes=(
      [vulkan]="--disable-software-rasterizer --use-angle=vulkan --enable-features=Vulkan,DefaultANGLEVulkan,VulkanFromANGLE"
      [angle-egl]="--disable-software-rasterizer --use-gl=angle --use-angle=gl-egl"
      [egl]="--disable-software-rasterizer --use-gl=egl"
      [swiftshader]="--use-angle=swiftshader --enable-unsafe-swiftshader"
    )
    reached=""
    for mode in vulkan angle-egl egl; do
      # A small run first: which renderer does the page get?
      timeout 120 python3 scripts/device/browser_report_server.py .browser/site \
        "$out/probe-$mode.json" 90 -- "$shell" "${common[@]}" ${modes[$mode]} \
        "/bench.html?sizes=64&saxpy=16" > "$out/probe-$mode.txt" 2>&1
      renderer=$(grep '^device:' "$out/probe-$mode.txt" | cut -d' ' -f2-)
      if [ -z "$renderer" ]; then
        echo "mode $mode: no page result (Chromium's output: $out/probe-$mode.txt)"
        tail -5 "$out/probe-$mode.txt"
      elif echo "$renderer" | grep -qi "nvidia"; then
        echo "mode $mode: the GPU ($renderer)"
        reached=$mode
        break
      else
        echo "mode $mode: not the GPU ($renderer)"
      fi
    done
    for mode in $reached swiftshader; do
      timeout 500 python3 scripts/device/browser_report_server.py .browser/site \
        "$out/bench-$mode.json" 480 -- "$shell" "${common[@]}" ${modes[$mode]} \
        "/bench.html?sizes=64,128,256,512,1024&saxpy=16,18,20,22" || echo "mode $mode: no report"
    done
    if [ -n "$reached" ]; then
      echo "RESULT: headless Chromium reached the GPU through $reached; bench-$reached.json"
    else
      echo "RESULT: headless Chromium did not reach the GPU in any mode tried; SwiftShader only"
    fi
    ;;
  *)
    echo "unknown stage $stage"
    exit 2
    ;;
esac
