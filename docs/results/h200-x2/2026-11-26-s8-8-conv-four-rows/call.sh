#!/usr/bin/env bash
# s8 call 8: the cost model's tilings for convolutions (4-row register blocks first) against
# 9bf73d6's (head): one process on one H200, `cnn` at 512 and 256, each variant with its own
# empty cache: --no-autotune (the cost model alone), then a default run (1 s of tuning), then
# --autotune-seconds inf and a tuned run.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache8
unset GPGPU_DEVICE
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache8 /tmp/m8; m=/tmp/m8
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
rm -rf /tmp/cache8-*
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # variant name batch options...
  local v=$1 name=$2 batch=$3; shift 3
  local tool=build/device/tools/gpgpu; [ $v = head ] && tool=build/device/head/tools/gpgpu
  GPGPU_CACHE_DIR=/tmp/cache8-$v $tool train --net cnn --batch $batch --epochs 3 --no-plots -q \
    --out $m/$v-$name "$@" > $m/$v-$name.txt 2>&1
  stamp "$v $name: rc $? $(rate $m/$v-$name) images/s"
}
for b in 512 256; do for v in head new; do run $v untuned-$b $b --no-autotune; done; done
for v in head new; do run $v default-512 512; done
run new tuning-512 512 --autotune-seconds inf
for r in 1 2; do for b in 512 256; do run new tuned-$b-$r $b; done; done
cd /tmp && tar czf $OUT/d8.tar.gz m8/d.log m8/gpus.txt m8/*.txt m8/*/history.json; cp m8/d.log $OUT/
