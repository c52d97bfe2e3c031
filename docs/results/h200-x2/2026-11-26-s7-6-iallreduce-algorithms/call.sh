#!/usr/bin/env bash
# s7 call 6: Open MPI's non-blocking allreduce algorithms (libnbc: default, 1 ring,
# 3 rabenseifner) on 2 x H200: gpgpu-mpi-rates (with a temporary clock inside
# gpgpu::mpi::allreduce on a Buffer, rank 0, 1 MB), and the CNN pairs with the default and ring.
# Binaries: 50b4e8f's gpgpu and gpgpu-mpi; gpgpu-mpi-rates with the temporary clock.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_coll_libnbc_iallreduce_algorithm
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m6; m=/tmp/m6
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for a in 0 1 3; do
  OMPI_MCA_coll_libnbc_iallreduce_algorithm=$a GPGPU_ALLREDUCE_CLOCK=1 timeout 120 mpirun --bind-to none -np 2 \
    sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' build/device/tools/gpgpu-mpi-rates \
    --json $m/rates-$a.json > $m/rates-$a.md 2> $m/rates-$a.err
  stamp "rates $a: rc $? $(grep -E '^\| (iallreduce|buffer_allreduce) \| (262144|1048576) ' $m/rates-$a.md | tr '\n' ' ')"
done
for round in 1 2 3; do for a in 0 1; do
  export OMPI_MCA_coll_libnbc_iallreduce_algorithm=$a
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$a-$round build/device > $m/cnn-$a-$round.log 2>&1
  stamp "cnn libnbc $a round $round: $(grep -E '^\| [0-9]' $m/cnn-$a-$round/cnn.md | tr '\n' ' ')"
done; done
unset OMPI_MCA_coll_libnbc_iallreduce_algorithm
cd /tmp && tar czf $OUT/d6.tar.gz m6/d.log m6/prebuilt.log m6/rates-* m6/cnn-*/cnn.md m6/cnn-*.log && cp m6/d.log $OUT/
