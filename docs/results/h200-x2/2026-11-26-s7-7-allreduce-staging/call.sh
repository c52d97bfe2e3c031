#!/usr/bin/env bash
# s7 call 7: gpgpu::mpi::allreduce on a Buffer with its host staging reused between calls
# (new: src/mpi/staging_pool) against a fresh array per call (before), both with the
# temporary clock inside (rank 0, 1 MB); alternating, three rounds; Open MPI's defaults.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_coll_libnbc_iallreduce_algorithm
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m7; m=/tmp/m7
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for round in 1 2 3; do for v in before new; do
  dir=build/device/tools; [ $v = before ] && dir=build/device/before/tools
  GPGPU_ALLREDUCE_CLOCK=1 timeout 120 mpirun --bind-to none -np 2 \
    sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' $dir/gpgpu-mpi-rates \
    --json $m/rates-$v-$round.json > $m/rates-$v-$round.md 2> $m/rates-$v-$round.err
  stamp "$v $round: rc $? $(grep -E '^\| (iallreduce|buffer_allreduce) \| (262144|1048576|4194304) ' $m/rates-$v-$round.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d7.tar.gz m7 && cp m7/d.log $OUT/
