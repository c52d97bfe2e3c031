#!/usr/bin/env bash
# Probe: is the slow 10k-image inference of a first process (empty disk cache) ours or the
# driver's? Separate processes of `gpgpu bench nn` on one machine, in this order:
#   P0 GPGPU_CACHE=off, driver's shader cache cold (a fresh machine)
#   P1 empty cache dir A         P2 cache dir A again (warm)
#   P3 empty cache dir B (driver cache warm now)     P4 GPGPU_CACHE=off
#   P5 empty cache dir C, GPGPU_NN_PROFILE=1 (per stage)   P6 cache dir C again, profiled
# Usage: bash scripts/device/first-process.sh OUT [BUILD]
set -uo pipefail
out=${1:-out/first-process}; build=${2:-/tmp/pb}
mkdir -p "$out"; out=$(cd "$out" && pwd)
source scripts/device/common.sh; device_preludes; start_clock; require_nn_data
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_CUDA=OFF -DGPGPU_BUILD_TESTS=OFF \
  -DGPGPU_BUILD_EXAMPLES=OFF -DGPGPU_BUILD_BENCH=ON > "$out/configure.log" 2>&1 &&
  cmake --build "$build" -j"$(nproc)" --target gpgpu_cli > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
stamp built
gpgpu=$build/tools/gpgpu
args=(bench nn --batches 256 --epochs 2 --train-limit 25600 ${EXTRA_ARGS:-})
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,utilization.gpu \
    --format=csv -lms 50 > "$out/clocks.csv" 2>&1 &
  smi=$!
fi
one() {  # NAME ENV...
  local name=$1; shift
  date +"%H:%M:%S.%N $name started" >> "$out/marks.txt"
  mkdir -p "$out/$name"
  env "$@" timeout 200 "$gpgpu" "${args[@]}" --out "$out/$name" > "$out/$name.log" 2> "$out/$name.stderr" ||
    tail -5 "$out/$name.stderr"
  date +"%H:%M:%S.%N $name ended" >> "$out/marks.txt"
  python3 - "$out/$name" "$name" "$*" <<'PY'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).rglob("*.json")):
    d = json.loads(f.read_text())
    for r in (d if isinstance(d, list) else [d]):
        if isinstance(r, dict) and "inference_ms" in r:
            print(sys.argv[2], sys.argv[3], "inference", [round(x, 2) for x in r["inference_ms"]])
PY
  stamp "$name done"
}
if [ -n "${PROBES:-}" ]; then eval "$PROBES"; else
one P0 GPGPU_CACHE=off
one P1 GPGPU_CACHE_DIR=/tmp/cA
one P2 GPGPU_CACHE_DIR=/tmp/cA
one P3 GPGPU_CACHE_DIR=/tmp/cB
one P4 GPGPU_CACHE=off
one P5 GPGPU_CACHE_DIR=/tmp/cC GPGPU_NN_PROFILE=1
one P6 GPGPU_CACHE_DIR=/tmp/cC GPGPU_NN_PROFILE=1
fi
[ -n "${smi:-}" ] && kill $smi
tar -C "$out" -czf "$out/../first-process.tgz" . && rm -rf "$out"
