#!/usr/bin/env bash
# Temporary (not committed): earth A/B of fence-flush variants on 2 GPUs.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE
mkdir -p /tmp/nvcache /tmp/m2; m=/tmp/m2
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/ab.log; }
# ab VARIANT LEVEL TAG RANKS(0: one process)
ab() {
  local d=$m/$1-L$2-$3 dir=build/device/$1; [ $1 = new ] && dir=build/device
  mkdir -p $d
  if [ $4 = 0 ]; then
    timeout 90 $dir/tools/gpgpu earth --case 5 --level $2 --days ${DAYS:-10} --no-pictures --out $d --json $d/run.json > $d/output.txt 2>&1
  else
    timeout 90 mpirun --bind-to none -np $4 $dir/tools/gpgpu-mpi earth --case 5 --level $2 --days ${DAYS:-10} --no-pictures --out $d --json $d/run.json > $d/output.txt 2>&1
  fi
  stamp "$1 L$2 $3 np$4: $(grep -o '"steps_per_wall_s": [0-9.]*' $d/run.json | grep -o '[0-9.]*$') $(grep -o 'FNV-1a [0-9a-f]*' $d/output.txt | head -1)"
}
for L in ${LEVELS:-9 8}; do
  ab new $L one 0
  for r in 1 2 3; do for v in ${VARIANTS:-base new new2}; do ab $v $L r$r 2; done; done
  ab base $L one 0
done
cd /tmp && tar czf $OUT/ab.tar.gz m2/ab.log m2/*/output.txt m2/*/run.json && cp m2/ab.log $OUT/
