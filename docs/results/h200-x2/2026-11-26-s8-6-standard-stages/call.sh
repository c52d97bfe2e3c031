#!/usr/bin/env bash
# s8 call 6: the standard stages on 9bf73d6's binaries: the CNN pairs with every GEMM tuned
# first (mpi-bench.sh's warm-up), then earth case 5 at levels 8 and 9 (10 days, default halo).
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m6; m=/tmp/m6
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=4 DEADLINE=200 \
  bash scripts/device/mpi-bench.sh $m/cnn build/device > $m/cnn.log 2>&1
stamp "cnn: $(grep -E '^\| [0-9]|half|median' $m/cnn/cnn.md | tr '\n' ' ')"
MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=earth MPI_BENCH_LEVELS="8 9" MPI_BENCH_DAYS=10 MPI_BENCH_HALO_STEPS="" \
  MPI_BENCH_REPEAT=2 DEADLINE=260 bash scripts/device/mpi-bench.sh $m/earth build/device > $m/earth.log 2>&1
stamp "earth: $(grep -E '^\|' $m/earth/table.md | tr '\n' ' ')"
cd /tmp && tar czf $OUT/d6.tar.gz m6/d.log m6/gpus.txt m6/prebuilt.log m6/cnn m6/earth m6/cnn.log m6/earth.log; cp m6/d.log $OUT/
