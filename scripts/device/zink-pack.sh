#!/usr/bin/env bash
# Packs Mesa's zink (OpenGL ES on Vulkan) from this Debian 12 machine into .zink/ (git-
# ignored) for a GPU machine whose image has a Vulkan driver (NVIDIA's ICD) but no Mesa:
# there, zink runs gpgpu's GLSL through Mesa's compiler (GLSL -> NIR -> SPIR-V) on the
# vendor's Vulkan driver. Run here, from the repository root: bash scripts/device/zink-pack.sh
# There, first: source .zink/prelude.sh (after .gl/prelude.sh), then GPGPU_DEVICE=software
# picks Mesa's EGL device, which zink then serves on the GPU.
#
# Mesa's driver links LLVM (for llvmpipe), and Debian's LLVM links libxml2 (with ICU's 30 MB
# of data) and Z3, which zink never calls; they are replaced by stubs of their sonames and
# symbol versions that abort if called, so that the pack fits the device tool's 64 MiB.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.zink/' .git/info/exclude 2>/dev/null || echo '/.zink/' >> .git/info/exclude
dpkg-query -W -f='${Status}' mesa-vulkan-drivers 2>/dev/null | grep -q "ok installed" ||
  { echo "needs mesa-vulkan-drivers (scripts/install-deps.sh)"; exit 1; }
multiarch=/usr/lib/x86_64-linux-gnu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/zink/lib" "$work/zink/dri"

# Every library Mesa's EGL and the gallium driver need, except glibc's, the C++ runtime
# (the GPU image has newer ones) and the three the stubs replace.
skip='^(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|libxml2|libz3|libicu.*)\.so'
for lib in $( (ldd $multiarch/dri/zink_dri.so; ldd $multiarch/libEGL_mesa.so.0) |
             awk '$3 ~ /^\// {print $3}' | sort -u); do
  name=$(basename "$lib")
  [[ $name =~ $skip ]] || cp -L "$lib" "$work/zink/lib/"
done
cp -L $multiarch/libEGL_mesa.so.0 $multiarch/libglapi.so.0 $multiarch/libvulkan.so.1 "$work/zink/lib/"
cp -L $multiarch/dri/zink_dri.so "$work/zink/dri/"
ln "$work/zink/dri/zink_dri.so" "$work/zink/dri/swrast_dri.so"  # one megadriver, two names

# The stubs: every symbol LLVM takes from libxml2 and Z3, under the versions it asks for.
symbols() { objdump -T $multiarch/libLLVM-15.so.1 | awk -v p="$1" '$NF ~ p && /\*UND\*/ {print $NF}'; }
{
  echo '#include <stdlib.h>'
  echo 'void* xmlFree = 0;'
  for s in $(symbols '^xml' | grep -v '^xmlFree$') $(symbols '^Z3_'); do
    echo "void $s(void) { abort(); }"
  done
} > "$work/stubs.c"
printf 'LIBXML2_2.4.30 { global: *; };\nLIBXML2_2.6.0 { global: xmlReadMemory; } LIBXML2_2.4.30;\n' \
  > "$work/xml.map"
gcc -shared -fPIC -o "$work/zink/lib/libxml2.so.2" -Wl,-soname,libxml2.so.2 \
  -Wl,--version-script,"$work/xml.map" "$work/stubs.c"
gcc -shared -fPIC -o "$work/zink/lib/libz3.so.4" -Wl,-soname,libz3.so.4 "$work/stubs.c"

cat > "$work/zink/50_mesa.json" <<'JSON'
{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_mesa.so.0"}}
JSON
cat > "$work/zink/prelude.sh" <<'PRE'
# Sourced on the GPU machine: Mesa's EGL (and only it) through glvnd, its zink driver on the
# machine's Vulkan driver.
zink_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /opt/gpgpu-zink
tar -xJf "$zink_here/zink.tar.xz" -C /opt/gpgpu-zink
export LD_LIBRARY_PATH=/opt/gpgpu-zink/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export __EGL_VENDOR_LIBRARY_FILENAMES=/opt/gpgpu-zink/50_mesa.json
export LIBGL_DRIVERS_PATH=/opt/gpgpu-zink/dri
# EGL's software device loads the megadriver by its swrast name; GALLIUM_DRIVER makes it zink.
# Not LIBGL_ALWAYS_SOFTWARE: with it, zink takes only a CPU Vulkan device (lavapipe).
export GALLIUM_DRIVER=zink XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
unset LIBGL_ALWAYS_SOFTWARE
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  # NVIDIA's Vulkan driver is in two libraries: libGLX_nvidia.so.0 (the manifest the image
  # ships names it) negotiates only with an X server behind it, libEGL_nvidia.so.0 headless.
  # With no display, a manifest naming the EGL one comes first.
  nv_egl=$(ldconfig -p | awk '/libEGL_nvidia\.so\.0 .*x86-64/ {print $NF; exit}')
  for nv_dir in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu; do
    [ -z "$nv_egl" ] && [ -e "$nv_dir/libEGL_nvidia.so.0" ] && nv_egl=$nv_dir/libEGL_nvidia.so.0
  done
  if [ -z "${DISPLAY:-}" ] && [ -n "$nv_egl" ]; then
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
      "$nv_egl" > /opt/gpgpu-zink/nvidia_egl_icd.json
    export VK_DRIVER_FILES=/opt/gpgpu-zink/nvidia_egl_icd.json
    export VK_ICD_FILENAMES=$VK_DRIVER_FILES
  fi
fi
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
             /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$icd" ] && export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd && break
  done
fi
PRE
rm -rf .zink && mkdir .zink
tar -cJf .zink/zink.tar.xz -C "$work/zink" .
cp "$work/zink/prelude.sh" .zink/
# Here, the pack must give zink on lavapipe exactly as the system's Mesa does.
(
  source .zink/prelude.sh
  unset VK_DRIVER_FILES VK_ICD_FILENAMES
  echo "check here: $(python3 - <<'PY'
import ctypes
print("libEGL_mesa loads:", bool(ctypes.CDLL("/opt/gpgpu-zink/lib/libEGL_mesa.so.0")))
PY
)"
)
du -sh .zink
echo "ready: carry .zink; on the GPU machine: source .zink/prelude.sh"
