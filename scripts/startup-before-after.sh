#!/usr/bin/env bash
# The README's short training run (scripts/main.sh) as a new user meets it, first and second
# process in one fresh cache folder (gpgpu's and Mesa's: XDG_CACHE_HOME), for two gpgpu
# binaries, interleaved so that both see the same load on the machine.
# Usage: bash scripts/startup-before-after.sh BEFORE_GPGPU AFTER_GPGPU OUT_DIR [ROUNDS]
set -uo pipefail
before=${1:?usage: startup-before-after.sh BEFORE_GPGPU AFTER_GPGPU OUT_DIR [ROUNDS]}
after=${2:?}
out=${3:?}
rounds=${4:-2}
mkdir -p "$out"
args=(train --net small --epochs 2 --train-limit 6000 --test-limit 2000 --quiet --no-plots)
echo "| round | binary | process | wall s | CPU s | epoch 1 s | epoch 2 s | eval 1 s | eval 2 s | programs |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for which in before after; do
    bin=$before
    [ "$which" = after ] && bin=$after
    folder=$(mktemp -d)
    for process in first second; do
      log="$out/$which-$round-$process.log"
      /usr/bin/time -f "TIME %e %U %S" env -u GPGPU_CACHE_DIR -u GPGPU_CACHE -u MESA_SHADER_CACHE_DIR \
        XDG_CACHE_HOME="$folder" "$bin" "${args[@]}" --out "$out/run-$which-$round-$process" \
        > "$log" 2>&1
      read -r wall user sys < <(grep '^TIME' "$log" | cut -d' ' -f2-)
      epochs=$(grep -E '^epoch' "$log" | sed -E 's/.* ([0-9.]+) s \(.*eval ([0-9.]+) s/\1 \2/' | tr '\n' ' ')
      read -r e1 v1 e2 v2 <<< "$epochs"
      programs=$(grep -m1 '^programs:' "$log" | cut -d' ' -f2-)
      echo "| $round | $which | $process | $wall | $(awk "BEGIN { print $user + $sys }") | $e1 | $e2 | $v1 | $v2 | ${programs:--} |"
    done
    rm -rf "$folder"
  done
done
