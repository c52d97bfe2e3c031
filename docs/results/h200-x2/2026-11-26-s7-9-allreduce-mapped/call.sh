#!/usr/bin/env bash
# s7 call 9: gpgpu::mpi::allreduce on a Buffer given its Context (AllreduceOptions::context:
# staging in the Context's mapped memory) against the data path's staging, gpgpu-mpi-rates
# three times on 2 x H200 (rows buffer_allreduce and buffer_allreduce_mapped; Open MPI's defaults).
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_coll_libnbc_iallreduce_algorithm
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m9; m=/tmp/m9
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for round in 1 2 3; do
  timeout 120 mpirun --bind-to none -np 2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    build/device/tools/gpgpu-mpi-rates --json $m/rates-$round.json > $m/rates-$round.md 2> $m/rates-$round.err
  stamp "round $round: rc $? $(grep -E '^\| buffer_allreduce(_mapped)? \| (262144|1048576|4194304|16777216) ' $m/rates-$round.md | tr '\n' ' ')"
done
cd /tmp && tar czf $OUT/d9.tar.gz m9 && cp m9/d.log $OUT/
