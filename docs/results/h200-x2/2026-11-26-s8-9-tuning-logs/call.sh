#!/usr/bin/env bash
# s8 call 9: what --autotune-seconds inf keeps with the 4-row-first candidate order (new) and
# with 9bf73d6's order (head): GPGPU_NN_VERBOSE=1 from empty caches, then a tuned run; `cnn`
# at 512, one process on one H200.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache9
unset GPGPU_DEVICE
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache9 /tmp/m9; m=/tmp/m9
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
rm -rf /tmp/cache9-*
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # variant name batch options...
  local v=$1 name=$2 batch=$3; shift 3
  local tool=build/device/tools/gpgpu; [ $v = head ] && tool=build/device/head/tools/gpgpu
  GPGPU_CACHE_DIR=/tmp/cache9-$v $tool train --net cnn --batch $batch --epochs 3 --no-plots -q \
    --out $m/$v-$name "$@" > $m/$v-$name.txt 2>&1
  stamp "$v $name: rc $? $(rate $m/$v-$name) images/s"
}
for v in new head; do
  GPGPU_NN_VERBOSE=1 run $v tuning-512 512 $([ $v = new ] && echo --autotune-seconds inf)
  [ $v = head ] && for i in 1 2 3 4 5 6; do run $v tuning-more-$i 512; done
  run $v tuned-512 512
done
cd /tmp && tar czf $OUT/d9.tar.gz m9/d.log m9/*.txt m9/*/history.json; cp m9/d.log $OUT/
