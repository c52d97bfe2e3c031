#!/usr/bin/env bash
# s9 call 3: GEMM tuning in steady rounds after a warm-up (new) against one candidate after
# the other (head, f6094c2), each as a first run meets it: empty gpgpu and driver shader
# caches, a GPU idle for 6 s; twice per variant (caches a and b, the order swapped); GPU
# clocks sampled meanwhile; then the tuned runs alternate.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache3 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache3 /tmp/m3; m=/tmp/m3
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
rm -rf /tmp/cache3-*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $m/gpus.txt
nvidia-smi --query-gpu=timestamp,index,pstate,clocks.sm,clocks.mem,utilization.gpu,power.draw \
  --format=csv,noheader -lms 20 > $m/clocks.csv 2>&1 &
mon=$!
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s $(date +%T.%N | cut -c1-12)] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
tool() { [ ${1%-*} = head ] && echo build/device/head || echo build/device; }
run() {  # variant-cache name batch options...
  local v=$1 name=$2 batch=$3; shift 3
  stamp "$v $name: start"
  GPGPU_CACHE_DIR=/tmp/cache3-$v $(tool $v)/tools/gpgpu train --net cnn --batch $batch --epochs 3 \
    --no-plots -q --out $m/$v-$name "$@" > $m/$v-$name.txt 2>&1
  stamp "$v $name: rc $? $(rate $m/$v-$name) images/s"
}
# Each tuning as a user's first run meets it: empty caches (gpgpu's and the driver's shader
# cache: the candidates compile between the timings) and a GPU idle for 6 s.
for c in a b; do for v in $([ $c = a ] && echo head new || echo new head); do
  sleep 6
  export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache3-$v-$c; mkdir -p $__GL_SHADER_DISK_CACHE_PATH
  GPGPU_NN_VERBOSE=1 run $v-$c tuning-512 512 --autotune-seconds inf
done; done
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache3
for r in 1 2; do for c in a b; do for v in head new; do run $v-$c tuned-512-$r 512; done; done; done
kill $mon
cd /tmp && xz -k m3/clocks.csv && tar czf $OUT/d3.tar.gz m3/d.log m3/gpus.txt m3/*.txt m3/*/history.json m3/clocks.csv.xz; cp m3/d.log $OUT/
