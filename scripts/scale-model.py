#!/usr/bin/env python3
"""The communication model of docs/scale.md: predicted time per step of the earth model and of
the CNN's data-parallel training on 1 to 512 GPUs, from measured single-GPU figures, measured
halo sizes (`gpgpu earth partition --json`) and stated interconnect parameters.

    python3 scripts/scale-model.py [--partition DIR] [--measured FILE.json]

--partition: where partition-L<level>.json files are (default
docs/results/llvmpipe/2026-11-25-mpi); levels without a file are extrapolated from the finest
one (halo ~ sqrt(cells per rank)).
--measured: a JSON list of {"what": "earth", "level": L, "gpus": N, "steps_per_s": X[,
"depth": 2 or 8]} or
{"what": "cnn", "global_batch": B, "gpus": N, "images_per_s": X} measured points; each is
printed beside its prediction with the relative error.
Prints Markdown tables (the ones in docs/scale.md).
"""
import argparse
import json
import math
import os

US = 1e-6

# ---- parameters (docs/scale.md says where each comes from) --------------------------------
# GPU: the H100's earth step, docs/earth.md "Step timing" (level 8, default kernels): one
# tendency dispatch 0.0511 ms and one update 0.0301 ms over 655,362 cells, 0.3246 ms of
# kernels in a step of 0.3864 ms wall (the rest: gaps between dispatches).
TENDENCY_S_PER_CELL = 0.0511e-3 / 655362
UPDATE_S_PER_CELL = 0.0301e-3 / 655362
GAPS = 0.3864 / 0.3246
EARTH_MIN_STEP = 0.083e-3  # a step's floor: eight dispatches' launch cost (level 6, wg256)
# Host staging on the H100: docs/data-path.md (SAXPY round trip table, 2^10 and 2^16 floats).
DOWNLOAD_FIXED, DOWNLOAD_BW = 30 * US, 13e9  # fence round trip; bytes/s
UPLOAD_FIXED, UPLOAD_BW = 17 * US, 11e9
# MPI on host memory: latency per message and bandwidth per rank. Inside a node the image's
# Open MPI (shared memory without single-copy): 4 KB allreduce 5-7 us, 1.7 MB 0.62-0.77 ms
# (shared/notes/gpu-facts.md). Between nodes: InfiniBand HDR/NDR (25-50 GB/s a node), shared
# by the node's 8 GPUs' ranks: ~3 GB/s each, no better than shared memory, so one figure.
MPI_LATENCY = 5 * US
MPI_BW = 2.6e9
GPUS_PER_NODE = 8
# The CNN (`cnn` net, docs/nn.md): 454,922 float32 parameters; H100 epochs of 60k images at
# batch 64 and 256 (0.631 s, 0.431 s) give a step of t0 + b * per_image.
CNN_PARAMETERS = 454922
CNN_STEP_64, CNN_STEP_256 = 0.631 / (60000 // 64), 0.431 / (60000 // 256)
CNN_PER_IMAGE = (CNN_STEP_256 - CNN_STEP_64) / (256 - 64)
CNN_STEP_FIXED = CNN_STEP_64 - 64 * CNN_PER_IMAGE
# The dense 3136x128 layer holds 88% of the gradients and finishes second in the backward
# pass; both convolutions' backward passes (49% of a step, docs/nn.md profile) run after it:
# the share of a step an allreduce started then can hide behind.
CNN_HIDEABLE = 0.49

LEVELS = [8, 9, 10, 11]
GPUS = [1, 2, 8, 64, 512]


def cells_at(level):
    return 10 * 4 ** level + 2


def load_partitions(folder):
    """{depth: {level: {ranks: row}}} from the partition-L<level>.json files."""
    table = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.startswith("partition-L") and name.endswith(".json"):
            j = json.load(open(os.path.join(folder, name)))
            for t in j["tables"]:
                table.setdefault(t["depth"], {})[j["level"]] = {r["ranks"]: r for r in t["rows"]}
    return table


def halo_of(partitions, level, ranks, depth):
    """(max halo cells, max links, min interior share) of the worst rank; extrapolated from
    the finest measured level with the same rank count: the boundary of a patch grows with
    the square root of its cells."""
    if ranks == 1:
        return 0, 0, 1.0
    levels = partitions[depth]
    if level in levels and ranks in levels[level]:
        r = levels[level][ranks]
        return r["max_halo"], r["max_links"], r["min_interior"]
    base = max(lv for lv in levels if ranks in levels[lv])
    r = levels[base][ranks]
    grow = math.sqrt(cells_at(level) / cells_at(base))
    return r["max_halo"] * grow, r["max_links"], 1 - (1 - r["min_interior"]) / grow


def earth_seconds(own, halo, links, interior, depth):
    """Seconds per step of a rank with `own` cells and `halo` cells in `depth` rings swapped
    with `links` neighbours, `interior` the share of its cells that need no halo; and the
    share of the step its exposed exchanges take. Stage s computes tendencies valid - 1 rings
    deep and updates valid - 2 (model.cpp); rings are taken as equally large."""
    ring = halo / depth
    tend = upd = 0.0
    valid, exchanges = 0, 0
    for _ in range(4):
        if valid < 2:
            valid, exchanges = depth, exchanges + 1
        tend += own + (valid - 1) * ring
        upd += own + (valid - 2) * ring
        valid -= 2
    compute = max(EARTH_MIN_STEP, GAPS * (TENDENCY_S_PER_CELL * tend + UPDATE_S_PER_CELL * upd))
    if halo == 0:
        return compute, 0.0
    size = 16 * halo  # a vec4 of float32 a cell, each way
    exchange = (DOWNLOAD_FIXED + size / DOWNLOAD_BW + links * MPI_LATENCY + size / MPI_BW +
                UPLOAD_FIXED + size / UPLOAD_BW)
    # The interior's first tendencies run on the GPU while the halo travels.
    hidden = GAPS * TENDENCY_S_PER_CELL * own * interior
    exposed = exchanges * max(0.0, exchange - hidden)
    return compute + exposed, exposed / (compute + exposed)


def earth_step(partitions, level, ranks, depth=8):
    """Seconds per step of the slowest rank, and its exposed exchange share."""
    halo, links, interior = halo_of(partitions, level, ranks, depth)
    return earth_seconds(math.ceil(cells_at(level) / ranks), halo, links, interior, depth)


def allreduce_seconds(ranks, size):
    """Host-staged allreduce of `size` bytes: download, MPI (recursive halving/doubling:
    2 log2 N latencies, 2 (N-1)/N of the data each way), upload."""
    if ranks == 1:
        return 0.0
    net = 2 * math.ceil(math.log2(ranks)) * MPI_LATENCY + 2 * (ranks - 1) / ranks * size / MPI_BW
    return DOWNLOAD_FIXED + size / DOWNLOAD_BW + net + UPLOAD_FIXED + size / UPLOAD_BW


def cnn_step(ranks, per_gpu_batch):
    compute = CNN_STEP_FIXED + per_gpu_batch * CNN_PER_IMAGE
    reduce = allreduce_seconds(ranks, 4 * CNN_PARAMETERS)
    return compute + max(0.0, reduce - CNN_HIDEABLE * compute), reduce


def earth_tables(partitions):
    for depth, how in ((8, "the halo swapped once a step (8 rings, the default)"),
                       (2, "2 rings swapped before every stage")):
        print(f"**Earth, strong scaling, {how}** (case 5; steps per second, speed-up over 1 "
              "GPU, exposed exchange share of the step)\n")
        print("| level | cells | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}" for n in GPUS) +
              " |")
        print("|---:|---:|" + "---:|" * len(GPUS))
        for level in LEVELS:
            one, _ = earth_step(partitions, level, 1, depth)
            row = []
            for n in GPUS:
                t, share = earth_step(partitions, level, n, depth)
                row.append(f"{1 / t:,.0f}" if n == 1 else
                           f"{1 / t:,.0f} ({one / t:.2f}x, {100 * share:.0f}%)")
            print(f"| {level} | {cells_at(level):,} | " + " | ".join(row) + " |")
        print()
    print("**Earth, weak scaling** (the cells per GPU of one level held fixed, halo once a "
          "step: efficiency T(1 GPU) / T(N GPUs))\n")
    print("| cells per GPU | " + " | ".join(f"{n} GPUs" for n in GPUS[1:]) + " |")
    print("|---|" + "---:|" * (len(GPUS) - 1))
    for per_gpu_level in (7, 8, 9):
        one, _ = earth_step(partitions, per_gpu_level, 1)
        row = [f"{100 * one / weak_step(partitions, per_gpu_level, n):.0f}%" for n in GPUS[1:]]
        print(f"| level {per_gpu_level} ({cells_at(per_gpu_level):,}) | " + " | ".join(row) + " |")
    print()


def weak_step(partitions, per_gpu_level, ranks, depth=8):
    """A step when each of `ranks` GPUs holds level `per_gpu_level`'s cells: the halo of
    `ranks` ranks at the finest measured level, scaled to that many cells per rank."""
    levels = partitions[depth]
    base = max(lv for lv in levels if ranks in levels[lv])
    r = levels[base][ranks]
    grow = math.sqrt(cells_at(per_gpu_level) * ranks / cells_at(base))
    interior = 1 - (1 - r["min_interior"]) / grow
    return earth_seconds(cells_at(per_gpu_level), r["max_halo"] * grow, r["max_links"],
                         interior, depth)[0]


def cnn_tables():
    print("**CNN (`cnn`), strong scaling at a global batch of 512** (images per second, "
          "speed-up over 1 GPU)\n")
    print("| GPUs | batch per GPU | step compute ms | allreduce ms | step ms | images/s | speed-up |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    one = None
    for n in GPUS:
        b = 512 / n
        t, reduce = cnn_step(n, b)
        one = one or t
        compute = CNN_STEP_FIXED + b * CNN_PER_IMAGE
        print(f"| {n} | {b:g} | {1e3 * compute:.3f} | {1e3 * reduce:.3f} | {1e3 * t:.3f} | "
              f"{512 / t:,.0f} | {one / t:.2f}x |")
    print()
    print("**CNN, weak scaling** (batch per GPU fixed; efficiency T(1 GPU) / T(N GPUs))\n")
    print("| batch per GPU | " + " | ".join(f"{n} GPUs" for n in GPUS[1:]) + " |")
    print("|---:|" + "---:|" * (len(GPUS) - 1))
    for b in (64, 256, 1024):
        one, _ = cnn_step(1, b)
        print(f"| {b} | " + " | ".join(f"{100 * one / cnn_step(n, b)[0]:.0f}%"
                                       for n in GPUS[1:]) + " |")
    print()


def check(partitions, measured):
    print("**Measured against predicted**\n")
    print("| what | GPUs | measured | predicted | predicted / measured |")
    print("|---|---:|---:|---:|---:|")
    for m in measured:
        if m["what"] == "earth":
            t, _ = earth_step(partitions, m["level"], m["gpus"], m.get("depth", 8))
            got, want = m["steps_per_s"], 1 / t
            what = f"earth level {m['level']} steps/s"
        else:
            t, _ = cnn_step(m["gpus"], m["global_batch"] / m["gpus"])
            got, want = m["images_per_s"], m["global_batch"] / t
            what = f"cnn batch {m['global_batch']} images/s"
        print(f"| {what} | {m['gpus']} | {got:,.1f} | {want:,.1f} | {want / got:.2f} |")
    print()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--partition", default="docs/results/llvmpipe/2026-11-25-mpi")
    p.add_argument("--measured")
    a = p.parse_args()
    partitions = load_partitions(a.partition)
    earth_tables(partitions)
    cnn_tables()
    if a.measured:
        check(partitions, json.load(open(a.measured)))


if __name__ == "__main__":
    main()
