#!/usr/bin/env bash
# s8 call 5: the CNN pairs with every GEMM tuned first (mpi-bench.sh's new warm-up:
# --autotune-seconds inf at 512 and 256): new binaries (split-K summed by the last work group
# where short), then head's binaries on the same tuned cache, then new again.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m5; m=/tmp/m5
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_NN_DATA=$PWD/data/fashion-mnist
nvidia-smi --query-gpu=name,driver_version --format=csv > $m/gpus.txt
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for v in new head new2; do
  b=build/device; [ $v = head ] && b=build/device/head
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=3 DEADLINE=150 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v $b > $m/cnn-$v.log 2>&1
  stamp "cnn $v: $(grep -E '^\| [0-9]|half' $m/cnn-$v/cnn.md | tr '\n' ' ')"
done
cd /tmp && tar czf $OUT/d5.tar.gz m5/d.log m5/gpus.txt m5/prebuilt.log m5/cnn-*/cnn.md m5/cnn-*/*.txt m5/cnn-*.log && cp m5/d.log $OUT/
