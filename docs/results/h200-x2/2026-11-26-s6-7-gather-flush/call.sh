#!/usr/bin/env bash
# Temporary (not committed): CNN A/B, a flush after the batch's gather (gf) against the head.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/nvcache /tmp/m7; m=/tmp/m7
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
for round in 1 2; do for v in head gf; do
  dir=build/device/$v; [ $v = head ] && dir=build/device
  MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn MPI_BENCH_REPEAT=2 DEADLINE=100 \
    bash scripts/device/mpi-bench.sh $m/cnn-$v-$round $dir > $m/cnn-$v-$round.log 2>&1
  stamp "cnn $v $round: $(grep -E '^\| [0-9]' $m/cnn-$v-$round/cnn.md | tr '\n' ' ')"
done; done
cd /tmp && tar czf $OUT/d7.tar.gz m7/d.log m7/cnn-*/cnn.md && cp m7/d.log $OUT/
