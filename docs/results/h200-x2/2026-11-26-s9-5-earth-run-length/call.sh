#!/usr/bin/env bash
# s9 call 5: does the GPUs' clock ramp weigh on the short earth runs? Level 8 (10 days is
# ~4,900 steps, ~1.2 s) at 10 and at 50 days, level 9 at 10 days; one process / 2 ranks,
# twice each; GPU clocks sampled meanwhile.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache5 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_BUCKET_BYTES
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache5 /tmp/m5; m=/tmp/m5
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
export GPGPU_CACHE_DIR=/tmp/cache5
nvidia-smi --query-gpu=timestamp,index,pstate,clocks.sm,clocks.mem,utilization.gpu,power.draw \
  --format=csv,noheader -lms 20 > $m/clocks.csv 2>&1 &
mon=$!
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s $(date +%T.%N | cut -c1-12)] $*" | tee -a $m/d.log; }
for days in 10 50; do
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=earth MPI_BENCH_LEVELS="8" MPI_BENCH_DAYS=$days MPI_BENCH_HALO_STEPS="" \
    MPI_BENCH_REPEAT=2 DEADLINE=200 bash scripts/device/mpi-bench.sh $m/earth8-$days build/device > $m/earth8-$days.log 2>&1
  stamp "level 8, $days days: $(grep -E 'level 8: rc' $m/earth8-$days/mpi-bench.log | tr '\n' ' ')"
done
MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=earth MPI_BENCH_LEVELS="9" MPI_BENCH_DAYS=10 MPI_BENCH_HALO_STEPS="" \
  MPI_BENCH_REPEAT=2 DEADLINE=200 bash scripts/device/mpi-bench.sh $m/earth9-10 build/device > $m/earth9-10.log 2>&1
stamp "level 9, 10 days: $(grep -E 'level 9: rc' $m/earth9-10/mpi-bench.log | tr '\n' ' ')"
kill $mon
cd /tmp && xz -k m5/clocks.csv && tar czf $OUT/d5.tar.gz m5/d.log m5/*/mpi-bench.log m5/*/table.md m5/clocks.csv.xz; cp m5/d.log $OUT/
