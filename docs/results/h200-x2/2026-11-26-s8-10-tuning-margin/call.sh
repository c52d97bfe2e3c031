#!/usr/bin/env bash
# s8 call 10: the final binaries (4-row blocks first for convolutions; a tuning keeps a later
# candidate only when >= 10% faster): one process from an empty cache, --no-autotune, then
# --autotune-seconds inf (GPGPU_NN_VERBOSE=1), tuned runs at 512 and 256; then mpi-bench's
# cnn stage (its own warm-up on that cache) for the 2-GPU pairs.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache10 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache10 /tmp/m10; m=/tmp/m10
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist GPGPU_CACHE_DIR=/tmp/cache10
rm -rf /tmp/cache10
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # name batch options...
  local name=$1 batch=$2; shift 2
  build/device/tools/gpgpu train --net cnn --batch $batch --epochs 3 --no-plots -q --out $m/$name "$@" > $m/$name.txt 2>&1
  stamp "$name: rc $? $(rate $m/$name) images/s"
}
for b in 512 256; do run untuned-$b $b --no-autotune; done
GPGPU_NN_VERBOSE=1 run tuning-512 512 --autotune-seconds inf
for b in 512 256; do run tuned-$b $b; done
MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=3 DEADLINE=150 \
  bash scripts/device/mpi-bench.sh $m/cnn build/device > $m/cnn.log 2>&1
stamp "cnn: $(grep -E '^\| [0-9]|half|median' $m/cnn/cnn.md | tr '\n' ' ')"
cd /tmp && tar czf $OUT/d10.tar.gz m10/d.log m10/gpus.txt m10/*.txt m10/*/history.json m10/cnn/cnn.md m10/cnn/mpi-bench.log; cp m10/d.log $OUT/
