#!/usr/bin/env bash
# s8 call 1: the floor: CNN steps with no glMemoryBarrier between compute dispatches
# (a temporary GPGPU_EXP_NO_BARRIER in ComputeKernel::start; results wrong, timing only)
# against the same binary with them.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m1; m=/tmp/m1
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # name ranks tool batch env
  local d=$m/$1; mkdir -p $d
  timeout 90 env $5 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/tools/$3 train --net cnn --batch $4 --epochs 3 --no-plots -q --out $d > $d/output.txt 2>&1
  stamp "$1: rc $? $(rate $d) images/s"
}
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
for round in 1 2; do for v in barrier none; do
  e=X=1; [ $v = none ] && e=GPGPU_EXP_NO_BARRIER=1
  run $v-$round-plain256 1 gpgpu 256 $e
  run $v-$round-hooks256 1 gpgpu-mpi 256 $e
  run $v-$round-plain512 1 gpgpu 512 $e
  run $v-$round-np2 2 gpgpu 512 $e
done; done
cd /tmp && tar czf $OUT/d1.tar.gz m1/d.log m1/gpus.txt m1/prebuilt.log m1/*/output.txt m1/*/history.json && cp m1/d.log $OUT/
