#!/usr/bin/env bash
# s9 call 4: what bounds the CNN on 2 GPUs, without code changes: on one tuned cache, one
# process at 512 and at 256; two independent processes at 256 at once (GPU 0 and GPU 1, no
# MPI: two GPUs with free communication); two independent one-rank MPI jobs at 256 at once
# (`mpirun -np 1 gpgpu-mpi train`: the data-parallel hooks, copies and update in place, but no
# other rank to wait for); and 2 ranks at a global 512. 5 epochs each, images/s of epochs 2-5;
# twice.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache4 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache4 /tmp/m4; m=/tmp/m4
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist GPGPU_CACHE_DIR=/tmp/cache4
rm -rf /tmp/cache4
g=build/device/tools/gpgpu gm=build/device/tools/gpgpu-mpi
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
acc() { grep -E '^test accuracy' $1.txt | cut -d' ' -f3; }
opts() { echo --net cnn --batch $1 --epochs 5 --no-plots -q --out $m/$2; }
for b in 512 256; do $g train --net cnn --batch $b --epochs 1 --train-limit 4096 --no-plots -q \
  --autotune-seconds inf --out $m/tune-$b > $m/tune-$b.txt 2>&1; done
stamp "tuned: rc $?"
for r in 1 2; do
  GPGPU_DEVICE=0 $g train $(opts 512 one-512-$r) > $m/one-512-$r.txt 2>&1
  GPGPU_DEVICE=0 $g train $(opts 256 one-256-$r) > $m/one-256-$r.txt 2>&1
  stamp "r$r one process: 512 $(rate $m/one-512-$r), 256 $(rate $m/one-256-$r)"
  for d in 0 1; do GPGPU_DEVICE=$d $g train $(opts 256 free-$d-$r) > $m/free-$d-$r.txt 2>&1 & done; wait
  stamp "r$r two processes at 256 at once: $(rate $m/free-0-$r) + $(rate $m/free-1-$r)"
  for d in 0 1; do mpirun --bind-to none -np 1 env GPGPU_DEVICE=$d $gm train $(opts 256 hooks-$d-$r) \
    > $m/hooks-$d-$r.txt 2>&1 & done; wait
  stamp "r$r two one-rank jobs at 256 at once: $(rate $m/hooks-0-$r) + $(rate $m/hooks-1-$r)"
  mpirun --bind-to none -np 2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' $g train \
    $(opts 512 np2-$r) > $m/np2-$r.txt 2>&1
  stamp "r$r 2 ranks at 512: $(rate $m/np2-$r) (accuracy $(acc $m/np2-$r) vs $(acc $m/one-512-$r))"
  grep "gradient sum" $m/np2-$r.txt $m/hooks-0-$r.txt | tee -a $m/d.log
done
cd /tmp && tar czf $OUT/d4.tar.gz m4/d.log m4/*.txt m4/*/history.json; cp m4/d.log $OUT/
