#!/usr/bin/env bash
# s7 call 4: where one process's step goes at 256 and 512 images (GPGPU_NN_PROFILE: a finish
# around every stage), and the same training without the profile for its step time.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache
unset GPGPU_DEVICE
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m4; m=/tmp/m4
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
for b in 256 512; do
  GPGPU_NN_PROFILE=1 build/device/tools/gpgpu train --net cnn --batch $b --epochs 2 --no-plots -q --out $m/p$b > $m/profile-$b.txt 2>&1
  build/device/tools/gpgpu train --net cnn --batch $b --epochs 3 --no-plots -q --out $m/r$b > $m/plain-$b.txt 2>&1
  python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print('$b', round(sum(x['images_per_second'] for x in e)/len(e)))" $m/r$b/history.json >> $m/rates.txt
done
cat $m/rates.txt
cd /tmp && tar czf $OUT/d4.tar.gz m4/*.txt && cp m4/profile-*.txt m4/rates.txt $OUT/
