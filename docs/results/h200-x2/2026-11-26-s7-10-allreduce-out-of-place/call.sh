#!/usr/bin/env bash
# s7 call 10: the Buffer allreduce with MPI out of place (sending from one half of a staging
# twice the Buffer's length, receiving in the other: oop) against in place (the committed
# code: inplace), gpgpu-mpi-rates alternating, three rounds each, 2 x H200, Open MPI's defaults.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_coll_libnbc_iallreduce_algorithm
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m10; m=/tmp/m10
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for round in 1 2 3; do for v in inplace oop; do
  dir=build/device/tools; [ $v = oop ] && dir=build/device/oop/tools
  timeout 120 mpirun --bind-to none -np 2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    $dir/gpgpu-mpi-rates --json $m/rates-$v-$round.json > $m/rates-$v-$round.md 2> $m/rates-$v-$round.err
  stamp "$v $round: rc $? $(grep -E '^\| buffer_allreduce(_mapped)? \| (262144|1048576|4194304|16777216) ' $m/rates-$v-$round.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d10.tar.gz m10 && cp m10/d.log $OUT/
