#!/usr/bin/env bash
# On a GPU machine (H100/H200): gpgpu on the vendor's OpenGL ES driver and on Mesa's zink over
# the vendor's Vulkan driver, same machine, same build (docs/portability.md). Stages, in the
# order given:
#   build       Release build of everything (CUDA references on) in BUILD (default
#               /tmp/gpgpu-reach; a later call on the same machine reuses it)
#   info        `gpgpu info` on both drivers
#   ctest-nv    the ctest suite on the vendor's driver (the browser and packaging left out)
#   ctest-zink  the GL tests (labels host, browser, packaging left out) on zink
#   compare     the same commands on both drivers, same run: SGEMM (`gpgpu bench matmul`,
#               n = 2048 and 4096, the register-blocked kernel), the cnn epoch (`gpgpu train`,
#               batch 256), a sort of 2^24 keys; writes compare.md with the ratios
#   cub         sort, sort_pairs and scan at 2^24, 2^26 and 2^28 keys beside CUB, same run
#               (`gpgpu bench primitives`; its table has the ratio to CUB)
# The vendor's GL libraries and the build dependencies come from .gl/ and .deps/; zink from
# .zink/ (scripts/device/zink-pack.sh), unpacked under /opt and used only by the zink runs.
# Usage: bash scripts/device/reach.sh OUT STAGE...
set -uo pipefail
out=${1:-out/reach}
shift || true
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${BUILD:-/tmp/gpgpu-reach}
source scripts/device/common.sh
device_preludes
start_clock
find_nn_data
gpgpu=$build/tools/gpgpu

# Runs "$@" with zink on the machine's Vulkan driver (Mesa's EGL only; software device).
on_zink() {
  (
    source .zink/prelude.sh
    export GPGPU_DEVICE=software
    "$@"
  )
}

ctest_on() {  # NAME [ctest arguments...]
  local name=$1
  shift
  (cd "$build" && timeout 420 ctest -j8 --timeout 240 --output-on-failure "$@") \
    > "$out/ctest-$name.log" 2>&1
  grep -E "tests passed|tests failed" "$out/ctest-$name.log"
  grep -E "^\s+[0-9]+ - " "$out/ctest-$name.log" | head -40
}

median_epoch() {  # the steady epochs' seconds from `gpgpu train` output: their median
  grep -oE "[0-9.]+ s \([0-9]+ img/s\)" "$1" | awk '{print $1}' | tail -n +2 | sort -n |
    awk '{a[NR] = $1} END {print (NR ? a[int((NR + 1) / 2)] : "n/a")}'
}

compare_one() {  # DRIVER: the measurements of one driver into $out/compare-DRIVER-*
  local drv=$1  # not `d`: .zink/prelude.sh is sourced in the same shell by on_zink
  timeout 150 "$gpgpu" bench matmul --sizes 2048 4096 \
    --methods compute_register_blocked,compute_tiled,fragment_packed --repeats 5 --warmup 2 \
    --no-charts --out "$out/mm-$drv" > "$out/compare-$drv-matmul.log" 2>&1
  # The CNN only where the data came too (the zink pack and the dataset together pass the
  # device tool's 64 MiB).
  if [ -n "${GPGPU_NN_DATA:-}" ]; then
    timeout 150 "$gpgpu" train --net cnn --epochs 3 --batch 256 --no-plots \
      --out "$out/train-$drv" > "$out/compare-$drv-cnn.log" 2>&1
  fi
  timeout 120 "$gpgpu" bench primitives --primitives sort,scan,reduce --log2-sizes 24 \
    --repeats 5 --warmup 2 --no-cpu --no-charts --out "$out/prim-$drv" \
    > "$out/compare-$drv-sort.log" 2>&1
}

for stage in "$@"; do
  case $stage in
    build)
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA=ON \
        -DGPGPU_BENCH_CUB=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
      cmake --build "$build" -j"$(nproc)" -- -k 0 > "$out/build.log" 2>&1 ||
        grep -E "error|FAILED" -A5 "$out/build.log" | head -40
      stamp "built"
      ;;
    info)
      "$gpgpu" info > "$out/info-nvidia.txt" 2>&1
      on_zink "$gpgpu" info > "$out/info-zink.txt" 2>&1
      on_zink "$gpgpu" info --features > "$out/features-zink.txt" 2>&1
      grep -m2 -E "renderer|GL version" "$out/info-nvidia.txt" "$out/info-zink.txt"
      stamp "info"
      ;;
    ctest-nv)
      ctest_on nvidia -LE 'browser|packaging'
      stamp "ctest on the vendor's driver"
      ;;
    ctest-zink)
      on_zink ctest_on zink -LE 'host|browser|packaging'
      stamp "ctest on zink"
      ;;
    compare)
      compare_one nvidia
      on_zink compare_one zink
      {
        for drv in nvidia zink; do
          echo "## $drv: gpgpu bench matmul (GFLOPS per method and n)"
          sed -n '/^Kernel GFLOPS/,/^Precision/p' "$out/compare-$drv-matmul.log"
          echo "## $drv: gpgpu bench primitives, 2^24 elements"
          grep -E "^## |^\| 2\^24" "$out/compare-$drv-sort.log"
          [ -f "$out/compare-$drv-cnn.log" ] &&
            echo "## $drv: cnn epoch at batch 256, median of epochs 2-3: $(median_epoch "$out/compare-$drv-cnn.log") s"
        done
      } > "$out/compare.md"
      cat "$out/compare.md"
      stamp "compare"
      ;;
    cub)
      timeout 300 "$gpgpu" bench primitives --primitives sort,sort_pairs,scan \
        --log2-sizes 24,26,28 --repeats 5 --warmup 2 --no-cpu --no-charts --out "$out/prim-cub" \
        > "$out/cub.log" 2>&1
      grep -iE "cub|sort|scan" "$out/cub.log" | head -30
      stamp "primitives beside CUB"
      ;;
  esac
done
