#!/usr/bin/env bash
# s9 call 1: GEMM tuning timed in rounds after a warm-up (new) against one candidate after
# the other (head, f6094c2): GPU clocks sampled every 20 ms by nvidia-smi meanwhile; each
# variant tunes from an empty cache (GPGPU_NN_VERBOSE=1, --autotune-seconds inf), then tuned
# runs alternate; then mpi-bench's cnn stage on each variant's cache (2-GPU pairs).
# ("new" here: plain rounds, without the steady-round check that calls 2 and 3 have.)
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache1 /tmp/m1; m=/tmp/m1
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
rm -rf /tmp/cache1-*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $m/gpus.txt
nvidia-smi --query-gpu=timestamp,index,pstate,clocks.sm,clocks.mem,utilization.gpu,power.draw \
  --format=csv,noheader -lms 20 > $m/clocks.csv 2>&1 &
mon=$!
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s $(date +%T.%N | cut -c1-12)] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
tool() { [ $1 = head ] && echo build/device/head || echo build/device; }
run() {  # variant name batch options...
  local v=$1 name=$2 batch=$3; shift 3
  stamp "$v $name: start"
  GPGPU_CACHE_DIR=/tmp/cache1-$v $(tool $v)/tools/gpgpu train --net cnn --batch $batch --epochs 3 \
    --no-plots -q --out $m/$v-$name "$@" > $m/$v-$name.txt 2>&1
  stamp "$v $name: rc $? $(rate $m/$v-$name) images/s"
}
for v in head new; do
  GPGPU_NN_VERBOSE=1 run $v tuning-512 512 --autotune-seconds inf
  GPGPU_NN_VERBOSE=1 run $v tuning-256 256 --autotune-seconds inf
done
for r in 1 2; do for v in head new; do run $v tuned-512-$r 512; run $v tuned-256-$r 256; done; done
for v in new head; do
  GPGPU_CACHE_DIR=/tmp/cache1-$v MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v $(tool $v) > $m/cnn-$v.log 2>&1
  stamp "cnn $v: $(grep -E '^\| [0-9]|half|median' $m/cnn-$v/cnn.md | tr '\n' ' ')"
done
kill $mon
cd /tmp && xz -k m1/clocks.csv && tar czf $OUT/d1.tar.gz m1/d.log m1/gpus.txt m1/*.txt m1/*/history.json m1/cnn-*/cnn.md m1/cnn-*/mpi-bench.log m1/clocks.csv.xz; cp m1/d.log $OUT/
