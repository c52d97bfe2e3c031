#!/usr/bin/env bash
# s9 call 6: the halo exchange's kernels reading and writing the mapped host copies
# themselves (new) against a GPU copy each way (head, f6094c2: the same earth code otherwise).
# mpi-bench's earth stage, case 5, levels 8 and 9, 10 days, two pairs each, for new, head,
# then new again; every 2-rank run's fields compared with one process's bit for bit.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache6 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache6 /tmp/m6; m=/tmp/m6
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_CACHE_DIR=/tmp/cache6
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for v in new head new2; do
  b=build/device; [ $v = head ] && b=build/device/head
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=earth MPI_BENCH_LEVELS="8 9" MPI_BENCH_DAYS=10 MPI_BENCH_HALO_STEPS="" \
    MPI_BENCH_REPEAT=2 DEADLINE=190 bash scripts/device/mpi-bench.sh $m/$v $b > $m/$v.log 2>&1
  stamp "$v: $(grep -E 'level [89]: rc' $m/$v/mpi-bench.log | sed 's/"steps_per_wall_s"://' | tr '\n' ' ')"
  grep -E "^\| [89] " $m/$v/table.md | tee -a $m/d.log
done
cd /tmp && tar czf $OUT/d6.tar.gz m6/d.log m6/*/mpi-bench.log m6/*/table.md; cp m6/d.log $OUT/
