#!/usr/bin/env bash
# s8 call 7: the CNN's GEMMs untuned and tuned, one process on one H200 of the 2-GPU machine:
# with an empty cache and --no-autotune (the cost model's tilings only), then
# --autotune-seconds inf with GPGPU_NN_VERBOSE=1 (each GEMM's candidates and the one kept),
# then the tuned rates; batches 512 and 256; 9bf73d6's binaries.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache7
unset GPGPU_DEVICE
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache7 /tmp/m7; m=/tmp/m7
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist GPGPU_CACHE_DIR=/tmp/cache7
rm -rf /tmp/cache7
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # name batch options...
  local name=$1 batch=$2; shift 2
  build/device/tools/gpgpu train --net cnn --batch $batch --epochs 3 --no-plots -q --out $m/$name "$@" > $m/$name.txt 2>&1
  stamp "$name: rc $? $(rate $m/$name) images/s"
}
for b in 512 256; do run untuned-$b $b --no-autotune; done
for b in 512 256; do GPGPU_NN_VERBOSE=1 run tuning-$b $b --autotune-seconds inf; done
for r in 1 2; do for b in 512 256; do run tuned-$b-$r $b; done; done
cd /tmp && tar czf $OUT/d7.tar.gz m7/d.log m7/gpus.txt m7/*.txt m7/*/history.json; cp m7/d.log $OUT/
