#!/usr/bin/env bash
# s7 call 3: where a rank's extra step time goes: one process at 256 images a step, plain
# (gpgpu train) and through the data-parallel hooks with one rank (gpgpu-mpi train: copies
# down, landing polls, a 1-rank MPI sum, the update from mapped memory), head and new.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m3; m=/tmp/m3
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][1:]; print(round(sum(x['images_per_second'] for x in e)/len(e)))" $1/history.json 2>/dev/null; }
run() {  # name ranks tool batch variant
  local d=$m/$1; mkdir -p $d
  timeout 90 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/$5/$3 train --net cnn --batch $4 --epochs 3 --no-plots -q --out $d > $d/output.txt 2>&1
  stamp "$1: rc $? $(rate $d) images/s"
}
for round in 1 2; do for v in head new; do
  t=tools; [ $v = head ] && t=head/tools
  run $v-$round-plain256 1 gpgpu 256 $t
  run $v-$round-hooks256 1 gpgpu-mpi 256 $t
  run $v-$round-plain512 1 gpgpu 512 $t
  run $v-$round-np2 2 gpgpu 512 $t
done; done
cd /tmp && tar czf $OUT/d3.tar.gz m3/d.log m3/prebuilt.log m3/*/output.txt m3/*/history.json && cp m3/d.log $OUT/
