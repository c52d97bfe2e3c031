#!/usr/bin/env bash
# Temporary (not committed): the standard stages at this session's head, and the session's
# base binaries' CNN in the same call.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/nvcache /tmp/m6; m=/tmp/m6
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
tl() {
  mkdir -p $m/tl/$1
  ( unset OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_DEVICE
    timeout 60 mpirun --bind-to none -np $2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/$4/gpgpu train --net cnn --batch $3 --epochs 1 --no-plots -q --out $m/tl/$1 \
    --timeline $m/tl/$1/steps.csv --timeline-steps 60,99 > $m/tl/$1/output.txt 2>&1 )
  stamp "timeline $1: rc $?"
}
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
tl np2 2 512 tools; tl np1 1 512 tools; tl half 1 256 tools
MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
  bash scripts/device/mpi-bench.sh $m/cnn-base build/device/base > $m/cnn-base.log 2>&1
stamp "cnn base: $(grep -E '^\| [0-9]' $m/cnn-base/cnn.md | tr '\n' ' ')"
STAGE_SECONDS_mpi=230 STAGE_SECONDS_mpi_cnn=90 MPI_BENCH_REPEAT=3 MPI_BENCH_DAYS=10 MPI_BENCH_HALO_STEPS="4" \
  bash scripts/device/measure-all.sh $m info mpi-rates mpi-cnn mpi
stamp "stages done"
cd /tmp && tar czf $OUT/d6.tar.gz --exclude='*.bin' --exclude='*.npz' --exclude='*.png' --exclude='*.mp4' --exclude='results.tar.gz' --exclude='model' --exclude='*.csv.gz' m6 && ls -la $OUT && cp m6/d.log $OUT/
