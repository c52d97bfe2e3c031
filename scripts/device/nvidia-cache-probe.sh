#!/usr/bin/env bash
# Whether NVIDIA's own shader disk cache works beside gpgpu's program binaries, with the
# heavy-kernels probe (12 unrolled tiled kernels): its folder made beforehand or not, the
# default places under HOME, and the cache forced on. Usage: BUILD=DIR bash nvidia-cache-probe.sh OUT
set -uo pipefail
out=${1:?}; mkdir -p "$out"
g=${BUILD:?}/tools/gpgpu
probe() {  # label, env...
  local label=$1; shift
  local s=$(date +%s.%N)
  local r=$(env "$@" "$g" bench startup-probe heavy-kernels 2>&1)
  local e=$(date +%s.%N)
  echo "$label: $(awk "BEGIN{print $e-$s}") s; $r"
}
for variant in made unmade; do
  f=$(mktemp -d /tmp/nvc.XXXX)
  [ $variant = made ] && mkdir -p "$f/nvidia"
  for run in empty warm warm-gpgpu-off warm-gpgpu-off-2; do
    off=""; case $run in warm-gpgpu-off*) off=off;; esac
    probe "nv-path-$variant $run" XDG_CACHE_HOME=$f GPGPU_CACHE_DIR= GPGPU_CACHE=$off __GL_SHADER_DISK_CACHE_PATH=$f/nvidia
  done
  echo "  files: $(find $f -type f | wc -l), $(du -sh $f | cut -f1); nvidia: $(find $f/nvidia -type f 2>/dev/null | head -3)"
  rm -rf "$f"
done
# The default places: HOME of our own, no __GL variables.
h=$(mktemp -d /tmp/nvh.XXXX)
for run in empty warm warm-gpgpu-off; do
  off=""; [ $run = warm-gpgpu-off ] && off=off
  probe "home $run" HOME=$h XDG_CACHE_HOME= GPGPU_CACHE_DIR= GPGPU_CACHE=$off
done
echo "  files under HOME: $(find $h -type f | sed "s|$h||" | head -8 | tr '\n' ' ')"
# Cache explicitly on / skip cleanup.
f=$(mktemp -d /tmp/nvc.XXXX); mkdir -p $f/nv
for run in empty warm-gpgpu-off; do
  off=""; [ $run = warm-gpgpu-off ] && off=off
  probe "forced $run" XDG_CACHE_HOME=$f GPGPU_CACHE_DIR= GPGPU_CACHE=$off __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 __GL_SHADER_DISK_CACHE_PATH=$f/nv
done
echo "  files: $(find $f -type f | wc -l)"
