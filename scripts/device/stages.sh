# Sourced by the device scripts after they set `out` (their output folder): makes it absolute,
# loads the GL libraries and build dependencies of .gl/ and .deps/ where present
# (shared/device/prepare-gl.sh, scripts/device/fetch-deps.sh), starts the clock and defines
#   stamp MSG    "[N s] MSG" on stdout and appended to $out/stages.log
#   budget CAP   the seconds a stage may take: CAP, or what is left of the call's $DEADLINE
#                (default $deadline_default, 570) less a margin ($deadline_margin, 10), so
#                that the call ends, and what ran comes back, inside the device's limit.
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -f .gl/prelude.sh ] && source .gl/prelude.sh > /dev/null
[ -f .deps/prelude.sh ] && source .deps/prelude.sh > /dev/null
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*" | tee -a "$out/stages.log"; }
budget() {
  local left=$((${DEADLINE:-${deadline_default:-570}} - ($(date +%s) - t0) - ${deadline_margin:-10}))
  if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}
