#!/usr/bin/env bash
# s7 call 8: does binding each rank to its GPU's NUMA node steady the 0.2 ms steps of level 8
# (and the CNN)? mpi-bench.sh earth (level 8, 10 days, two pairs) and cnn stages with
# mpirun's default here (--bind-to none) and --map-by numa --bind-to numa, alternating.
# Binaries: 50b4e8f's gpgpu and gpgpu-mpi (no GPU path changed since).
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE OMPI_MCA_btl_vader_single_copy_mechanism OMPI_MCA_coll_libnbc_iallreduce_algorithm
tar xJf build/pack/device.tar.xz
mkdir -p /tmp/nvcache /tmp/m8; m=/tmp/m8
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
nvidia-smi topo -m > $m/topo.txt 2>&1; lscpu > $m/lscpu.txt 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
for round in 1 2; do for b in none numa; do
  opts="--bind-to none"; [ $b = numa ] && opts="--map-by numa --bind-to numa"
  MPI_BENCH_MPIRUN="$opts" MPI_BENCH_BUILD=0 MPI_BENCH_STAGES="earth cnn" MPI_BENCH_LEVELS=8 \
    MPI_BENCH_DAYS=10 MPI_BENCH_REPEAT=2 MPI_BENCH_HALO_STEPS="" DEADLINE=150 \
    bash scripts/device/mpi-bench.sh $m/$b-$round build/device > $m/$b-$round.log 2>&1
  stamp "$b $round: $(grep -E '^\| 8 \|' $m/$b-$round/table.md | tail -1) $(grep -E '^\| [0-9] \|' $m/$b-$round/cnn.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d8.tar.gz m8/d.log m8/prebuilt.log m8/topo.txt m8/lscpu.txt m8/*.log m8/*/table.md m8/*/cnn.md m8/*/*/output.txt m8/*/*/run.json && cp m8/d.log m8/topo.txt $OUT/
