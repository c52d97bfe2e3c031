#!/usr/bin/env bash
# Temporary (not committed): one device call of A/B measurements.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/nvcache /tmp/m
m=/tmp/m
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/exp.log; }
# tl NAME RANKS BATCH BUILD: a CNN run with a timeline of steps 200-259 (epoch 1 of 2)
tl() {
  mkdir -p $m/tl/$1
  timeout 60 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/$4/gpgpu train --net cnn --batch $3 --epochs 1 --no-plots -q --out $m/tl/$1 \
    --timeline $m/tl/$1/steps.csv --timeline-steps 60,99 > $m/tl/$1/output.txt 2>&1
  stamp "timeline $1: rc $? $(grep -E 'img/s' $m/tl/$1/output.txt | tail -1)"
}
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
stamp "prebuilt: $BUILD"
tl np2 2 512 tools; tl half 1 256 tools; tl np1 1 512 tools
[ -x build/device/exp/tools/gpgpu ] && { tl np2-exp 2 512 exp/tools; }
for v in ${EXP_CNN_VARIANTS:-}; do
  dir=build/device/$v; [ $v = new ] && dir=build/device
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=${EXP_CNN_REPEAT:-2} DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v $dir > $m/cnn-$v.log 2>&1
  stamp "cnn $v: $(grep -E 'median' $m/cnn-$v/cnn.md)"
done
STAGE_SECONDS_mpi=${EXP_MPI_SECONDS:-200} MPI_BENCH_REPEAT=${EXP_MPI_REPEAT:-2} MPI_BENCH_DAYS=10 \
  MPI_BENCH_HALO_STEPS="4" bash scripts/device/measure-all.sh $m info ${EXP_STAGES:-mpi}
stamp "stages done"
cd /tmp && tar czf $OUT/results.tar.gz m && cp m/exp.log $OUT/
