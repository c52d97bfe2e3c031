#!/usr/bin/env bash
# The standard stages at the session's head (0b82fe6), everything but saved models kept.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache; mkdir -p /tmp/nvcache /tmp/m8
STAGE_SECONDS_mpi=170 STAGE_SECONDS_mpi_cnn=60 MPI_BENCH_REPEAT=2 MPI_BENCH_DAYS=10 MPI_BENCH_HALO_STEPS="4" \
  bash scripts/device/measure-all.sh /tmp/m8 info mpi-rates mpi-cnn mpi
for s in mpi mpi-cnn mpi-rates; do
  [ -f /tmp/m8/$s/results.tar.gz ] && (cd /tmp/m8/$s && tar xzf results.tar.gz --exclude='*.npz' --exclude='*/model*' --exclude='*.bin' --exclude='predictions.csv' && rm results.tar.gz)
done
cd /tmp && tar czf $OUT/m8.tar.gz --exclude='*.npz' --exclude='model' --exclude='*.bin' --exclude='predictions.csv' --exclude='*.png' m8 && ls -la $OUT
