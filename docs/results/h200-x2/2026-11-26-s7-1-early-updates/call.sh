#!/usr/bin/env bash
# s7 call 1: the CNN with per-bucket early updates (new) against the session's head (head).
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m1; m=/tmp/m1
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
tl np2-head 2 512 head/tools; tl np2-new 2 512 tools; tl np1-256 1 256 tools; tl np1-512 1 512 tools
for round in 1 2 3; do for v in head new; do
  dir=build/device/$v; [ $v = new ] && dir=build/device
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v-$round $dir > $m/cnn-$v-$round.log 2>&1
  stamp "cnn $v $round: $(grep -E '^\| [0-9]' $m/cnn-$v-$round/cnn.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d1.tar.gz m1/d.log m1/gpus.txt m1/prebuilt.log m1/tl/*/steps*.csv m1/tl/*/output.txt m1/cnn-*/cnn.md m1/cnn-*.log && cp m1/d.log $OUT/
