#!/usr/bin/env bash
# The earth model and CNN training on 1 and 2 GPUs of one host (device kind nvidia-h100-x2 or nvidia-h200-x2):
# builds gpgpu and gpgpu-mpi against the image's Open MPI (4.1.6 there; never carry Debian's,
# its PMIx clashes with the image's: shared/notes/gpu-facts.md), then for earth case 5 at
# each level runs
#   one    gpgpu earth (one process, no MPI)
#   np1    mpirun -np 1 gpgpu-mpi earth (one rank: the MPI path's own overhead)
#   np2    mpirun -np 2 gpgpu-mpi earth (one rank per GPU, picked by node-local rank), the
#          halo as the model chooses it by default (--halo-steps 0: 8 steps a swap on GPUs
#          where the halo stays within half a rank's cells)
#   np2s   the same with the halo swapped before every stage (--halo stage, 2 rings)
#   np2hN  the same with the halo swapped once every N steps, N from MPI_BENCH_HALO_STEPS
# and records steps per second of the stepping (the JSON's steps_per_wall_s), the ratio
# np2 / one, and whether the final fields are bit for bit the same (FNV-1a of the fields and
# the saved height files). Also the halo sizes of the 2-rank partition (gpgpu earth partition).
# With MPI_BENCH_REPEAT=N (default 1) one and np2 run N times, alternating, and the table
# adds each pair's ratio and their median (identical runs differ by ~10%).
# Stage cnn: data-parallel training of the `cnn` net, global batch 512, the same epochs on
#   cnn-np1  mpirun -np 1 gpgpu train (one rank: gpgpu hands over to gpgpu-mpi from 2 ranks
#            up, so this is the one-process path, the baseline)
#   cnn-half one process at the batch each of 2 ranks computes (256): twice its rate is what
#            2 GPUs would reach if the gradients travelled for free
#   cnn-np2  mpirun -np 2 gpgpu train (one GPU each: GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK)
# images per second of the epochs after the first (history.json), the ratio np2 / np1
# (target >= 1.7x) and the final test accuracy of both (target: within 0.3 points), and
# each rank's step timing (MpiTeam::timing), in cnn.md; np1 and np2 run MPI_BENCH_REPEAT
# times. Bounded to MPI_BENCH_CNN_SECONDS (default 300) for all runs together. First, one
# epoch on 2,048 images at each batch with --autotune-seconds inf tunes every GEMM.
# Stage rates: gpgpu-mpi-rates on 2 ranks (host MPI sendrecv and allreduce, a halo exchange
# and an allreduce on Buffers, by size) into rates.json and rates.md: the measured inputs of
# scripts/scale-model.py --rates.
# OUT_DIR keeps mpi-bench.log, table.md, cnn.md, rates.* and results.tar.gz (every run's output
# and JSON).
#
#   bash scripts/device/mpi-bench.sh OUT_DIR [BUILD_DIR]
#
# Environment:
#   MPI_BENCH_LEVELS   levels (default "8 9")
#   MPI_BENCH_DAYS     simulated days per run (default 2: ~1200 steps at level 8, ~2500 at 9)
#   MPI_BENCH_BUILD=0  use an existing BUILD_DIR (default /tmp/gpgpu-mpi)
#   MPI_BENCH_MPIRUN   mpirun options (default "--bind-to none": Open MPI binds 2 ranks to one
#                      core each by default, and with it the GL driver's and the data path's
#                      threads)
#   MPI_BENCH_SINGLE_COPY  "default" (default): Open MPI's own choice of single-copy
#                      mechanism for messages on one host (CMA where the kernel allows it);
#                      the GPU image presets OMPI_MCA_btl_vader_single_copy_mechanism=none,
#                      which "none" keeps (large host messages then go through two copies:
#                      ~10% fewer earth steps a second on two H200s, 2026-11-26)
#   DEADLINE           seconds for the whole script (default 560); runs left are skipped
#   MPI_BENCH_STAGES   stages to run: "earth" (default), "cnn" (training only), "rates",
#                      "rehearse" (one GPU: the earth step by level, and one rank's share of
#                      2, 4, 8 ranks at levels 8 and 9 timed alone), or several ("earth cnn
#                      rates")
#   MPI_BENCH_REHEARSE_LEVELS  the rehearse stage's one-GPU levels (default 5,6,7,8,9)
#   MPI_BENCH_EPOCHS   epochs of each cnn run (default 3)
#   MPI_BENCH_CNN_ARGS more `gpgpu train` options for both cnn runs (e.g. "--train-limit 4096
#                      --backend cpu" for a trial on llvmpipe)
#   GPGPU_NN_DATA      Fashion-MNIST (default /usr/share/datasets/fashion-mnist, else
#                      ./data/fashion-mnist)
# The GL libraries and build dependencies the image lacks come from .gl/ and .deps/
# (shared/device/prepare-gl.sh and scripts/device/fetch-deps.sh, run beforehand); MPI does
# not: the image has it.
set -uo pipefail
out=${1:?usage: mpi-bench.sh OUT_DIR [BUILD_DIR]}
build=${2:-/tmp/gpgpu-mpi}
mkdir -p "$out"
out=$(cd "$out" && pwd)
source scripts/device/common.sh
device_preludes > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
unset GPGPU_DEVICE  # each rank picks its GPU by its node-local rank
if [ "${MPI_BENCH_SINGLE_COPY:-default}" = default ]; then
  unset OMPI_MCA_btl_vader_single_copy_mechanism
else
  export OMPI_MCA_btl_vader_single_copy_mechanism=$MPI_BENCH_SINGLE_COPY
fi
levels=${MPI_BENCH_LEVELS:-"8 9"}
stages=" ${MPI_BENCH_STAGES:-earth} "
has_stage() { [[ $stages == *" $1 "* ]]; }
read -r -a mpirun_options <<< "${MPI_BENCH_MPIRUN:---bind-to none}"
days=${MPI_BENCH_DAYS:-2}
start_clock
stamp_log=$out/mpi-bench.log
left() { echo $((${DEADLINE:-560} - ($(date +%s) - t0))); }

if [ "${MPI_BENCH_BUILD:-1}" != 0 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPGPU_WERROR=OFF \
        -DGPGPU_BUILD_TESTS=OFF -DGPGPU_BUILD_EXAMPLES=OFF \
        > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  grep -E "gpgpu::mpi" "$out/configure.log" | tee -a "$out/mpi-bench.log"
  timeout 300 cmake --build "$build" -j"$(nproc)" --target gpgpu_cli gpgpu_mpi_cli gpgpu_mpi_rates \
    > "$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
  stamp "built"
fi
gpgpu=$build/tools/gpgpu
mpirun --version 2>&1 | head -1 | tee -a "$out/mpi-bench.log"
stamp "single-copy mechanism: ${OMPI_MCA_btl_vader_single_copy_mechanism:-the default of Open MPI}"
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$out/nvidia-smi.txt" 2>&1
nvidia-smi topo -m >> "$out/nvidia-smi.txt" 2>&1

# run NAME LEVEL "EARTH OPTIONS" COMMAND...: one earth run, its JSON and output under
# $out/NAME-L<level>.
run() {
  local name=$1 level=$2 extra
  read -r -a extra <<< "$3"
  shift 3
  local dir="$out/$name-L$level" budget
  budget=$(($(left) - 5))
  if [ "$budget" -lt 30 ]; then stamp "skipped $name level $level (deadline)"; return 1; fi
  mkdir -p "$dir"
  timeout "$budget" "$@" earth --case 5 --level "$level" --days "$days" --no-pictures \
    --save --out "$dir" --json "$dir/run.json" "${extra[@]}" > "$dir/output.txt" 2>&1
  local rc=$?
  stamp "$name level $level: rc $rc, $(grep -o '"steps_per_wall_s": [0-9.]*' "$dir/run.json" 2>/dev/null)"
  return $rc
}

has_stage earth || levels=""
for level in $levels; do
  timeout 120 "$gpgpu" earth partition --level "$level" --ranks 2 --json "$out/partition-L$level.json" \
    > "$out/partition-L$level.txt" 2>&1
  run one "$level" "" "$gpgpu"
  run np1 "$level" "" mpirun "${mpirun_options[@]}" -np 1 "$build/tools/gpgpu-mpi"
  run np2 "$level" "" mpirun "${mpirun_options[@]}" -np 2 "$build/tools/gpgpu-mpi"
  for ((r = 2; r <= ${MPI_BENCH_REPEAT:-1}; r++)); do
    run "one-r$r" "$level" "" "$gpgpu"
    run "np2-r$r" "$level" "" mpirun "${mpirun_options[@]}" -np 2 "$build/tools/gpgpu-mpi"
  done
  run np2s "$level" "--halo stage" mpirun "${mpirun_options[@]}" -np 2 "$build/tools/gpgpu-mpi"
  names="np1 np2 np2s"
  for ((r = 2; r <= ${MPI_BENCH_REPEAT:-1}; r++)); do names="$names np2-r$r"; done
  for k in ${MPI_BENCH_HALO_STEPS-2 4}; do
    run "np2h$k" "$level" "--halo-steps $k" mpirun "${mpirun_options[@]}" -np 2 "$build/tools/gpgpu-mpi"
    names="$names np2h$k"
  done
  for name in $names; do
    a="$out/one-L$level" b="$out/$name-L$level"
    same_hash=$([ "$(grep -o 'FNV-1a [0-9a-f]*' "$a/output.txt")" = "$(grep -o 'FNV-1a [0-9a-f]*' "$b/output.txt")" ] && echo yes || echo NO)
    same_file=$(cmp -s "$a"/height_*.bin "$b"/height_*.bin && echo yes || echo NO)
    stamp "level $level $name vs one: fields FNV equal: $same_hash, saved heights equal: $same_file"
  done
  rm -f "$out"/*-L"$level"/height_*.bin  # 21 MB each at level 9: compared, not kept
done

# The table: steps per second per run and the ratio to one process.
has_stage earth && MPI_BENCH_HALO_STEPS="${MPI_BENCH_HALO_STEPS-2 4}" MPI_BENCH_REPEAT="${MPI_BENCH_REPEAT:-1}" python3 - "$out" $levels <<'PY' | tee "$out/table.md"
import json, sys, os, statistics
out, levels = sys.argv[1], sys.argv[2:]
ks = os.environ["MPI_BENCH_HALO_STEPS"].split()
print("| level | cells | one process steps/s | 1 rank steps/s | 2 ranks steps/s (default halo) | 2 ranks / one | 2 ranks, halo every stage | / one | " + " | ".join(f"2 ranks, halo every {k} steps | / one" for k in ks) + " | grid s (one, np2) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(ks) + "---|")
for level in levels:
    rows = {}
    for name in ["one", "np1", "np2", "np2s"] + [f"np2h{k}" for k in ks]:
        try:
            rows[name] = json.load(open(os.path.join(out, f"{name}-L{level}", "run.json")))
        except Exception:
            rows[name] = None
    def rate(n): return rows[n]["steps_per_wall_s"] if rows[n] else float("nan")
    cells = next((r["cells"] for r in rows.values() if r), 0)
    grid = ", ".join(f'{rows[n]["grid_s"]:.1f}' if rows[n] else "-" for n in ("one", "np2"))
    deep = "".join(f" {rate(f'np2h{k}'):.1f} | {rate(f'np2h{k}') / rate('one'):.2f}x |" for k in ks)
    print(f"| {level} | {cells} | {rate('one'):.1f} | {rate('np1'):.1f} | {rate('np2'):.1f} | {rate('np2') / rate('one'):.2f}x | {rate('np2s'):.1f} | {rate('np2s') / rate('one'):.2f}x |{deep} {grid} |")
repeat = int(os.environ["MPI_BENCH_REPEAT"])
if repeat > 1:
    print()
    print(f"Default halo, {repeat} pairs of runs (one process, then 2 ranks), steps/s:")
    print()
    print("| level | " + " | ".join(f"pair {r}" for r in range(1, repeat + 1)) + " | median ratio |")
    print("|---:|" + "---|" * repeat + "---:|")
    for level in levels:
        ratios, cols = [], []
        for r in range(1, repeat + 1):
            sfx = "" if r == 1 else f"-r{r}"
            try:
                a = json.load(open(os.path.join(out, f"one{sfx}-L{level}", "run.json")))["steps_per_wall_s"]
                b = json.load(open(os.path.join(out, f"np2{sfx}-L{level}", "run.json")))["steps_per_wall_s"]
            except Exception:
                cols.append("-")
                continue
            ratios.append(b / a)
            cols.append(f"{a:.0f} / {b:.0f} = {b / a:.2f}x")
        med = statistics.median(ratios) if ratios else float("nan")
        print(f"| {level} | " + " | ".join(cols) + f" | {med:.2f}x |")
PY
# Stage cnn: `gpgpu train --net cnn` on 1 rank and on 2 ranks (a GPU each).
# train_run NAME RANKS BATCH
train_run() {
  local name=$1 ranks=$2 batch=$3 budget dir="$out/$1"
  budget=$(( ${MPI_BENCH_CNN_SECONDS:-300} / (2 + 2 * ${MPI_BENCH_REPEAT:-1}) ))
  [ "$budget" -gt "$(($(left) - 10))" ] && budget=$(($(left) - 10))
  if [ "$budget" -lt 20 ]; then stamp "skipped $name (deadline)"; return 1; fi
  mkdir -p "$dir"
  # One GPU per rank by node-local rank; set inside the rank (mpirun -x cannot expand it).
  timeout "$budget" mpirun "${mpirun_options[@]}" -np "$ranks" sh -c \
    'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$gpgpu" train --net cnn \
    --batch "$batch" --epochs "${MPI_BENCH_EPOCHS:-3}" --no-plots -q --out "$dir" "${cnn_args[@]}" \
    > "$dir/output.txt" 2>&1
  stamp "$name: rc $?, $(grep -E '^test accuracy' "$dir/output.txt")"
}
if has_stage cnn; then
  if ! find_nn_data; then
    stamp "cnn: no Fashion-MNIST directory (set GPGPU_NN_DATA)"
  else
    read -r -a cnn_args <<< "${MPI_BENCH_CNN_ARGS:-}"
    # Every GEMM tuned before any timed run, at both batches (a process tunes for at most 1 s
    # and leaves the rest to later ones: which GEMMs were still untuned moved one process's
    # rate by up to 15% between otherwise identical runs).
    limit=(--train-limit 2048)
    [[ " ${cnn_args[*]} " == *" --train-limit "* ]] && limit=()
    for batch in 512 256; do
      "$gpgpu" train --net cnn --batch "$batch" --epochs 1 "${limit[@]}" --no-plots -q \
        --autotune-seconds inf --out "$out/cnn-tune-$batch" "${cnn_args[@]}" \
        > "$out/cnn-tune-$batch.txt" 2>&1
      stamp "cnn tuning at $batch: rc $?"
    done
    train_run cnn-half 1 256
    for ((r = 1; r <= ${MPI_BENCH_REPEAT:-1}; r++)); do
      sfx=$([ "$r" = 1 ] || echo "-r$r")
      train_run "cnn-np1$sfx" 1 512
      train_run "cnn-np2$sfx" 2 512
    done
    MPI_BENCH_REPEAT="${MPI_BENCH_REPEAT:-1}" python3 - "$out" <<'PY' | tee "$out/cnn.md"
import json, os, statistics, sys
out = sys.argv[1]
repeat = int(os.environ["MPI_BENCH_REPEAT"])
def load(name):
    try:
        return json.load(open(os.path.join(out, name, "history.json")))
    except Exception:
        return None
def rate(h):  # images per second of the epochs after the first (kernels built, caches warm)
    e = h["epochs"][1:] if h else []
    return sum(x["images_per_second"] for x in e) / len(e) if e else float("nan")
def acc(h):
    return 100 * h["epochs"][-1]["test_accuracy"] if h and h["epochs"] else float("nan")
half = load("cnn-half")
pairs = []
for r in range(1, repeat + 1):
    sfx = "" if r == 1 else f"-r{r}"
    pairs.append((load(f"cnn-np1{sfx}"), load(f"cnn-np2{sfx}")))
epochs = len(pairs[0][0]["epochs"]) if pairs[0][0] else 0
print(f"`gpgpu train --net cnn --batch 512 --epochs {epochs}`, global batch 512; 2 ranks: one GPU each, 256 images a step each")
print()
print("| run | 1 rank images/s | 2 ranks images/s | 2 ranks / 1 rank | test accuracy 1 rank / 2 ranks |")
print("|---:|---:|---:|---:|---:|")
ratios = []
for i, (a, b) in enumerate(pairs, 1):
    ratios.append(rate(b) / rate(a))
    print(f"| {i} | {rate(a):.0f} | {rate(b):.0f} | {ratios[-1]:.2f}x | {acc(a):.2f}% / {acc(b):.2f}% |")
median = statistics.median(ratios)
print()
print(f"2 ranks / 1 rank: median {median:.2f}x (target >= 1.7x); accuracy difference "
      f"{abs(acc(pairs[0][1]) - acc(pairs[0][0])):.2f} points (target <= 0.3)")
print(f"One process at batch 256 (what each rank computes): {rate(half):.0f} images/s; with free "
      f"communication 2 ranks would reach 2 x that = {2 * rate(half) / rate(pairs[0][0]):.2f}x of 1 rank at 512")
print()
print("Each rank's step (MpiTeam::timing), the first pair:")
print()
print("```")
try:
    for line in open(os.path.join(out, "cnn-np2", "output.txt")):
        if line.startswith("rank "):
            print(line.rstrip())
except OSError:
    pass
print("```")
PY
  fi
fi
if has_stage rates; then
  timeout "$(($(left) - 5))" mpirun "${mpirun_options[@]}" -np 2 sh -c \
    'GPGPU_DEVICE=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' "$build/tools/gpgpu-mpi-rates" \
    --json "$out/rates.json" > "$out/rates.md" 2>&1
  stamp "rates: rc $?"
fi
if has_stage rehearse; then
  # One GPU: the earth step by level (the dispatches' fixed cost shows at the small ones),
  # then one rank's share of 2, 4 and 8 ranks timed alone (gpgpu earth bench --ranks: its
  # cells, rings and dispatches, no messages): the kernels of a run across GPUs, measured
  # on one.
  mkdir -p "$out/rehearse"
  bench() {
    local name=$1
    shift
    timeout "$(($(left) - 5))" "$gpgpu" earth bench --case 5 --seconds 2 \
      --json "$out/rehearse/$name.json" "$@" > "$out/rehearse/$name.txt" 2>&1
    stamp "rehearse $name: rc $?"
  }
  bench one --levels "${MPI_BENCH_REHEARSE_LEVELS:-5,6,7,8,9}"
  for ranks in 2 4 8; do
    bench "ranks$ranks-rank0" --levels 8,9 --ranks "$ranks" --rank 0
  done
  bench ranks2-rank1 --levels 8,9 --ranks 2 --rank 1
fi
# What comes back: the log, the tables, and the rest packed (a device call returns at most 8
# files of 16 MiB).
(cd "$out" && tar czf results.tar.gz --remove-files ./*-L* ./partition-L* ./cnn-* configure.log \
  build.log nvidia-smi.txt 2> /dev/null)
stamp "done: $out/table.md, $out/results.tar.gz"
