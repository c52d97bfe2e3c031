#!/usr/bin/env bash
# Temporary (not committed): level-9 diagnosis on 2 GPUs: topology, binding, timelines.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE
mkdir -p /tmp/nvcache /tmp/m3; m=/tmp/m3
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
{ nvidia-smi topo -m; lscpu | head -25; cat /proc/cpuinfo | grep MHz | head -4; nproc; uptime; nvidia-smi -q -d CLOCK | grep -A4 "Clocks$" | head -12; } > $m/host.txt 2>&1
g=build/device/tools
# run TAG "MPIRUN OPTIONS" "EARTH OPTIONS"
run() {
  local d=$m/$1; mkdir -p $d
  timeout 90 mpirun $2 -np 2 $g/gpgpu-mpi earth --case 5 --level 9 --days 10 --no-pictures --out $d --json $d/run.json $3 > $d/output.txt 2>&1
  stamp "$1: $(grep -o '"steps_per_wall_s": [0-9.]*' $d/run.json | grep -o '[0-9.]*$')"
}
run tl "--bind-to none" "--timeline $m/tl/l9.csv --timeline-steps 3000,3199"
run none "--bind-to none" ""
run core "--bind-to core --map-by numa" ""
run numa "--bind-to numa --map-by numa" ""
run none2 "--bind-to none" ""
mkdir -p $m/one; timeout 60 $g/gpgpu earth --case 5 --level 9 --days 10 --no-pictures --out $m/one --timeline $m/tl/one.csv --timeline-steps 3000,3199 > $m/one/output.txt 2>&1
stamp "one: $(grep -iE 'steps/s|steps per' $m/one/output.txt | head -2)"
for r in 0 1; do timeout 40 $g/gpgpu earth bench --levels 9 --case 5 --seconds 3 --ranks 2 --rank $r > $m/rehearse-$r.txt 2>&1; stamp "rehearse $r: $(tail -3 $m/rehearse-$r.txt | tr '\n' ' ')"; done
cd /tmp && tar czf $OUT/d.tar.gz m3/d.log m3/host.txt m3/tl m3/*/output.txt m3/rehearse-*.txt && cp m3/d.log $OUT/
