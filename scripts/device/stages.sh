# Sourced by the device scripts after they set `out` (their output folder): makes it absolute,
# loads the GL libraries and build dependencies of .gl/ and .deps/ where present and starts the
# clock (common.sh: device_preludes, start_clock; its find_nn_data too), and defines
#   stamp MSG    "[N s] MSG" on stdout and appended to $out/stages.log
#   budget CAP   the seconds a stage may take: CAP, or what is left of the call's $DEADLINE
#                (default $deadline_default, 570) less a margin ($deadline_margin, 10), so
#                that the call ends, and what ran comes back, inside the device's limit.
#   ensure_cli DIR  builds the CLI (Release, gpgpu_cli) in DIR unless DIR/tools/gpgpu exists;
#                logs in $out/configure.log and $out/build.log; non-zero (and the errors) on failure
mkdir -p "$out"
out=$(cd "$out" && pwd)
source scripts/device/common.sh
device_preludes > /dev/null
start_clock
stamp_log=$out/stages.log
budget() {
  local left=$((${DEADLINE:-${deadline_default:-570}} - ($(date +%s) - t0) - ${deadline_margin:-10}))
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}
ensure_cli() {
  [ -x "$1/tools/gpgpu" ] && return 0
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
    -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF > "$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; return 1; }
  timeout "$(budget 300)" cmake --build "$1" -j"$(nproc)" --target gpgpu_cli \
    > "$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; return 1; }
}
