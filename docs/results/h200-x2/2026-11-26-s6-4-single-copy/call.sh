#!/usr/bin/env bash
# Temporary (not committed): MPI on this host: CMA, mapped memory, the earth at level 9.
source .gl/prelude.sh > /dev/null; source .deps/prelude.sh > /dev/null
export __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset GPGPU_DEVICE
mkdir -p /tmp/nvcache /tmp/m4; m=/tmp/m4
source scripts/device/prebuilt.sh > $m/prebuilt.log 2>&1
t0=$(date +%s); stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a $m/d.log; }
g=build/device/tools
{ cat /proc/sys/kernel/yama/ptrace_scope; cat /proc/sys/kernel/perf_event_paranoid; env | grep OMPI_MCA; ompi_info --param btl vader --level 9 | grep -iE "single_copy|cma|knem|xpmem"; id; capsh --print 2>/dev/null | head -3; } > $m/host.txt 2>&1
rates() { timeout 90 mpirun --bind-to none $2 -np 2 sh -c 'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' $g/gpgpu-mpi-rates --json $m/rates-$1.json > $m/rates-$1.md 2>&1; stamp "rates $1: rc $?"; }
earth() {
  local d=$m/$1; mkdir -p $d
  timeout 90 mpirun --bind-to none $2 -np 2 $g/gpgpu-mpi earth --case 5 --level 9 --days 10 --no-pictures --out $d --json $d/run.json > $d/output.txt 2>&1
  stamp "$1: rc $? $(grep -o '"steps_per_wall_s": [0-9.]*' $d/run.json | grep -o '[0-9.]*$')"
}
rates default ""
rates cma "--mca btl_vader_single_copy_mechanism cma"
rates none "--mca btl_vader_single_copy_mechanism none"
earth default ""
earth cma "--mca btl_vader_single_copy_mechanism cma"
earth none "--mca btl_vader_single_copy_mechanism none"
earth default2 ""
cd /tmp && tar czf $OUT/d4.tar.gz m4/d.log m4/host.txt m4/rates-* m4/*/output.txt && cp m4/d.log $OUT/
