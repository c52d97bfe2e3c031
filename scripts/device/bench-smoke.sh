#!/usr/bin/env bash
# On a GPU machine: every `gpgpu bench ...` that needs no dataset, at small sizes with the CUDA
# and CUB references built in, so that a change to the benches or their harness is seen to
# build and run there (the CUDA-guarded code does not build without nvcc).
# With Fashion-MNIST (common.sh's find_nn_data), also bench nn, bench startup and
# bench/nn/torch_cnn.py with CUDA graphs. Each bench's log, JSON and CSV land under OUT; summary.txt lists each one's exit status.
# Usage: bash scripts/device/bench-smoke.sh OUT [BUILD_DIR]   (about 5 minutes on an H200)
set -uo pipefail
out=${1:-out/bench-smoke}
build=${2:-/tmp/bx}
source scripts/device/common.sh
device_setup  # $out made and absolute, the preludes loaded, the clock started
cuda_build "$build" "$out" gpgpu_cli matmul_bench_test memory_test
stamp built
g=$build/tools/gpgpu
# run NAME COMMAND...: the command's output in OUT/NAME.log, its exit status in summary.txt.
run() {
  local name=$1
  shift
  timeout 240 "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $?" | tee -a "$out/summary.txt"
}
run matmul $g bench matmul --sizes 1024,4096 --repeats 3 --no-charts --out "$out/matmul"
run memory $g bench memory --quick --out "$out/memory"
run datapath $g bench datapath --quick --out "$out/datapath"
run ceiling $g bench ceiling --quick --out "$out/ceiling"
run primitives $g bench primitives --log2-sizes 20,24 --no-charts --out "$out/primitives"
run dispatch $g bench dispatch --out "$out/dispatch"
run grid $g bench grid --levels 5,6 --repeats 2 --out "$out/grid"
run primitives_tuning $g bench primitives --primitives sort --log2-sizes 24 --no-cpu --no-charts \
  --tuning sort_onesweep=1,onesweep_local=512,onesweep_keys=11 --out "$out/primitives-tuning"
if find_nn_data; then
  run torch_cnn_graph "${TORCH_PYTHON:-python3}" bench/nn/torch_cnn.py --data "$GPGPU_NN_DATA" \
    --batches 64 --epochs 2 --train-limit 6400 --cuda-graph --cudnn-benchmark --out "$out/torch.json"
  run nn $g bench nn --batches 64 --epochs 2 --train-limit 6400 --data "$GPGPU_NN_DATA" --out "$out/nn"
  run startup $g bench startup --repeats 1 --train-limit 256 --test-limit 100 \
    --data "$GPGPU_NN_DATA" --out "$out/startup"
fi
run matmul_bench_test "$build/tests/matmul_bench_test"
run memory_test "$build/tests/memory_test"
stamp done
