#!/usr/bin/env bash
# On a GPU machine (the H100): host transfers and overlap (issue 18, item 5), in one call of
# about 150 s, with CUDA from the same run:
#   1. SAXPY round trip from std::vector (copy lanes on, and off) and from HostBuffer
#      (zero-copy) at n = 2^24, 2^25, 2^26 against CUDA from pageable and pinned memory
#      (`gpgpu bench datapath --which saxpy`); its notes list what the driver offers for
#      importing host memory (GL_EXT_external_buffer, GL_AMD_pinned_memory, ...);
#   2. the overlap pipeline: 1 GiB in 8 and 16 chunks, run() per chunk against run_async()
#      with 2 and 4 in flight, copy lanes off and on (`--which pipeline`);
#   3. matmul end to end from host arrays against cuBLAS end to end (pinned) at n = 1024 and
#      8192 (`--which matmul`).
# Tables go to OUT_DIR/datapath/datapath-{saxpy,pipeline,matmul}.{json,csv}, logs to OUT_DIR,
# and OUT_DIR/summary.md gathers the three tables (for docs/data-path.md).
#
#   bash scripts/device/transfers-bench.sh OUT_DIR [BUILD]
#
# BUILD: a build with tools/gpgpu (all-suite.sh's, as its stage `transfers`); without one the
# CLI is built here (Release, CUDA references where the CUDA toolkit is found). DEADLINE
# (seconds for the whole call, default 150) bounds every stage, so what ran comes back.
# TRANSFERS_SMOKE=1: small sizes and few repeats, a check of the script itself (llvmpipe).
# The GL libraries and build dependencies come from .gl/ and .deps/ (as all-suite.sh).
set -uo pipefail
out=${1:-out/transfers-bench}
deadline_default=150 deadline_margin=5
source scripts/device/stages.sh

build=${2:-${BUILD:-/tmp/gpgpu-transfers-build}}
ensure_cli "$build" || exit 1
gpgpu=$build/tools/gpgpu
$gpgpu info > "$out/gpgpu-info.txt" 2>&1
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv \
    > "$out/nvidia-smi.txt" 2>&1
stamp "ready; $(grep -m1 -i renderer "$out/gpgpu-info.txt")"

saxpy=24,25,26 pipeline=1024 sizes=1024,8192 repeats=7 warmup=2
if [ -n "${TRANSFERS_SMOKE:-}" ]; then
  saxpy=16,18 pipeline=16 sizes=128,256 repeats=3 warmup=1
fi
bench() {  # NAME CAP ARGS...: one table, bounded by CAP seconds (or what is left)
  local name=$1 cap=$2
  shift 2
  timeout "$(budget "$cap")" $gpgpu bench datapath --which "$name" --out "$out" \
    --repeats "$repeats" --warmup "$warmup" "$@" > "$out/bench-$name.log" 2>&1
  stamp "$name: rc $?"
}
bench saxpy 50 --saxpy-log2 "$saxpy"
bench pipeline 50 --pipeline-mib "$pipeline"
bench matmul 60 --sizes "$sizes"

# The tables as the CLI printed them (each ends at its last note), for docs/data-path.md.
{
  echo "# transfers-bench: $(grep -m1 -i renderer "$out/gpgpu-info.txt" | sed "s/  */ /g")"
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
  for name in saxpy pipeline matmul; do
    echo
    echo "## $name"
    echo '```'
    grep -v -E "^(saxpy|pipeline|matmul): " "$out/bench-$name.log"
    echo '```'
  done
} > "$out/summary.md"
stamp "summary.md written"
