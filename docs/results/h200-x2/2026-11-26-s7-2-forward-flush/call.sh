#!/usr/bin/env bash
# s7 call 2: the CNN: head against new (early per-bucket updates + each forward stage submitted
# at once), and new with 64 KB buckets (GPGPU_BUCKET_BYTES, a temporary switch in this build).
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m2; m=/tmp/m2
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
tl() {
  mkdir -p $m/tl/$1
  timeout 60 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/$4/gpgpu train --net cnn --batch $3 --epochs 1 --no-plots -q --out $m/tl/$1 \
    --timeline $m/tl/$1/steps.csv --timeline-steps 60,99 > $m/tl/$1/output.txt 2>&1
  stamp "timeline $1: rc $?"
}
tl np2-head 2 512 head/tools; tl np2-new 2 512 tools
GPGPU_BUCKET_BYTES=65536 tl np2-b64 2 512 tools
for round in 1 2 3; do for v in head new b64; do
  dir=build/device/$v; [ $v != head ] && dir=build/device
  if [ $v = b64 ]; then export GPGPU_BUCKET_BYTES=65536; else unset GPGPU_BUCKET_BYTES; fi
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v-$round $dir > $m/cnn-$v-$round.log 2>&1
  stamp "cnn $v $round: $(grep -E '^\| [0-9]' $m/cnn-$v-$round/cnn.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d2.tar.gz m2/d.log m2/gpus.txt m2/prebuilt.log m2/tl/*/steps*.csv m2/tl/*/output.txt m2/cnn-*/cnn.md m2/cnn-*.log && cp m2/d.log $OUT/
