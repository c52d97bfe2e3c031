#!/usr/bin/env bash
# One device call of measurements on prebuilt binaries (scripts/device/pack-prebuilt.sh here,
# carried with .gl, .deps, build/device and data): each stage bounded by its own timeout so
# that the call ends inside the device's 10 minutes and what ran comes back under OUT.
#
#   bash scripts/device/measure-all.sh OUT STAGE...
#
# Stages: info, startup (scripts/device/startup-bench.sh), phases (startup-phases.sh), mpi
# (mpi-bench.sh, earth levels 8 and 9 on 1 and 2 GPUs), mpi-cnn (mpi-bench.sh's CNN stage),
# mpi-rates (its rates stage: gpgpu-mpi-rates), mpi-rehearse (its rehearse stage: one rank's
# share timed on one GPU), nn (nn-bench.sh gpu stage:
# epochs and 10k inference vs PyTorch), nn-cpu (nn-bench.sh cpu stage), grid
# (grid-bench.sh), datapath (gpgpu bench datapath vs CUDA), transfers
# (scripts/device/transfers-bench.sh where it exists), gltests (the GoogleTest binaries
# packed under build/device/tests, on the GPU). Stage seconds: STAGE_SECONDS_<stage>.
# PACK_TO=DIR: OUT packed into DIR/results.tar.gz (plus DIR/stages.log) at the end.
set -uo pipefail
out=${1:?usage: measure-all.sh OUT STAGE...}
shift
source scripts/device/stages.sh
source scripts/device/prebuilt.sh > "$out/prebuilt.log" 2>&1
seconds() { local v="STAGE_SECONDS_$1"; echo "${!v:-$2}"; }
stamp "binaries from $BUILD"
for stage in "$@"; do
  s=$(seconds "${stage//-/_}" 120)
  case $stage in
    info) timeout 30 "$BUILD/tools/gpgpu" info > "$out/gpgpu-info.txt" 2>&1
          nvidia-smi --query-gpu=name,driver_version --format=csv >> "$out/gpgpu-info.txt" 2>&1 ;;
    startup) BUILD=$BUILD REPEATS=${REPEATS:-2} DEADLINE=$s timeout "$s" \
               bash scripts/device/startup-bench.sh "$out/startup" > "$out/startup.log" 2>&1 ;;
    phases) BUILD=$BUILD timeout "$s" bash scripts/device/startup-phases.sh "$out/phases" \
              > "$out/phases.log" 2>&1 ;;
    mpi) MPI_BENCH_BUILD=0 MPI_BENCH_DAYS=${MPI_BENCH_DAYS:-1} DEADLINE=$((s - 5)) timeout "$s" \
           bash scripts/device/mpi-bench.sh "$out/mpi" "$BUILD" > "$out/mpi.log" 2>&1 ;;
    mpi-cnn) MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=cnn DEADLINE=$((s - 5)) timeout "$s" \
               bash scripts/device/mpi-bench.sh "$out/mpi-cnn" "$BUILD" > "$out/mpi-cnn.log" 2>&1 ;;
    mpi-rates) MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=rates DEADLINE=$((s - 5)) timeout "$s" \
                 bash scripts/device/mpi-bench.sh "$out/mpi-rates" "$BUILD" > "$out/mpi-rates.log" 2>&1 ;;
    mpi-rehearse) MPI_BENCH_BUILD=0 MPI_BENCH_STAGES=rehearse DEADLINE=$((s - 5)) timeout "$s" \
                    bash scripts/device/mpi-bench.sh "$out/mpi-rehearse" "$BUILD" \
                    > "$out/mpi-rehearse.log" 2>&1 ;;
    nn) GPGPU_BUILD_DIR=$BUILD NN_STAGES=gpu timeout "$s" \
          bash scripts/device/nn-bench.sh "$out/nn" > "$out/nn.log" 2>&1 ;;
    nn-cpu) GPGPU_BUILD_DIR=$BUILD NN_STAGES=cpu timeout "$s" \
              bash scripts/device/nn-bench.sh "$out/nn-cpu" > "$out/nn-cpu.log" 2>&1 ;;
    grid) GRID_BUILD=0 GRID_LEVELS=${GRID_LEVELS:-6,8,9} GRID_BIG_LEVELS=${GRID_BIG_LEVELS:-10} \
            GRID_CASE2_LEVELS=${GRID_CASE2_LEVELS:-4 5 6} GRID_DEADLINE=$((s - 5)) timeout "$s" \
            bash scripts/device/grid-bench.sh "$out/grid" "$BUILD" > "$out/grid.log" 2>&1 ;;
    datapath) timeout "$s" "$BUILD/tools/gpgpu" bench datapath --repeats 7 --warmup 2 \
                --out "$out/datapath" > "$out/datapath.log" 2>&1 ;;
    transfers) BUILD=$BUILD timeout "$s" bash scripts/device/transfers-bench.sh "$out/transfers" \
                 > "$out/transfers.log" 2>&1 ;;
    gltests) for t in "$BUILD"/tests/*_test; do  # the test binaries pack-prebuilt.sh packed
               echo "== $(basename "$t")"; timeout "$s" "$t" --gtest_brief=1 2>&1 | tail -15
             done > "$out/gltests.log" 2>&1 ;;
    *) echo "unknown stage $stage" ;;
  esac
  stamp "$stage: rc $? (limit $s s)"
done
# A device call returns few files: everything in one archive beside the stage log.
if [ -n "${PACK_TO:-}" ]; then
  mkdir -p "$PACK_TO"
  tar czf "$PACK_TO/results.tar.gz" -C "$out" .
  cp "$out/stages.log" "$PACK_TO/"
fi
