#!/usr/bin/env bash
# s8 call 3: split-K summed by the last work group only where short (split x tm x tn <= 128)
# against head (every split-K a second kernel after a barrier); CNN one process at 256, 512, 2 ranks.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m3; m=/tmp/m3
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
acc() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['epochs'][-1].get('test_accuracy'))" $1/history.json 2>/dev/null; }
run() {  # name ranks tool batch variant tools
  local d=$m/$1; mkdir -p $d
  timeout 90 env GPGPU_CACHE_DIR=/tmp/cache3-$5 GPGPU_NN_VERBOSE=1 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/$6/$3 train --net cnn --batch $4 --epochs 3 --no-plots -q --out $d > $d/output.txt 2>&1
  stamp "$1: rc $? $(rate $d) images/s acc $(acc $d)"
}
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
for round in 1 2 3; do for v in head hyb; do
  t=tools; [ $v = head ] && t=head/tools
  run $v-$round-plain256 1 gpgpu 256 $v $t
  run $v-$round-plain512 1 gpgpu 512 $v $t
  run $v-$round-np2 2 gpgpu 512 $v $t
  [ $round = 1 ] && run $v-$round-hooks256 1 gpgpu-mpi 256 $v $t
done; done
cd /tmp && tar czf $OUT/d3.tar.gz m3/d.log m3/gpus.txt m3/prebuilt.log m3/*/output.txt m3/*/history.json && cp m3/d.log $OUT/
