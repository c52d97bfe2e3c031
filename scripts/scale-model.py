#!/usr/bin/env python3
"""The communication model of docs/scale.md: predicted time per step of the earth model and of
the CNN's data-parallel training on 1 to 512 GPUs, from what one GPU measures, what moving data
between two ranks measures (gpgpu-mpi-rates) and the halo sizes of the partition; then the
2-GPU runs measured on the same machine, beside their predictions.

    python3 scripts/scale-model.py [--bench DIR] [--partition DIR] [--depth-runs DIR]

--bench: a folder of `measure-all.sh OUT info mpi-rehearse mpi-rates mpi mpi-cnn` results
(default docs/results/h200-x2/2026-11-26-halo-flush-2): mpi/one*-L<level>/run.json (one GPU:
the calibration) and mpi/np2*-L<level>/run.json (two GPUs: the check, never an input), and
mpi-rehearse/rehearse (one rank's share timed alone). --rates: the folder whose
mpi-rates/rates.json holds the transfer costs, where the bench has none; --cnn-bench: the CNN's
runs, mpi-cnn/cnn-half, cnn-np1* (calibration) and cnn-np2* (check) (both default
docs/results/h200-x2/2026-11-26-halo-flush). --partition: where partition-L<level>*.json files
(`gpgpu earth partition --json`) are (default docs/results/llvmpipe/2026-11-26-partition).
Prints Markdown (the tables of docs/scale.md).
"""
import argparse
import glob
import json
import math
import os
import statistics

# ---- stated parameters (docs/scale.md, Parameters, says where each comes from) -----------
# A stage's tendency and update dispatches, in shares of their time per cell (the H100's
# level-8 step timing, docs/earth.md: 0.0511 and 0.0301 ms over 655,362 cells): the weights of
# ring cells, which get a tendency one ring deeper than an update.
TENDENCY_SHARE = 0.0511 / (0.0511 + 0.0301)
# Between nodes (more than GPUS_PER_NODE ranks): InfiniBand NDR, 50 GB/s a node shared by its
# 8 GPUs' ranks, 2 us a message; a halo's and a reduction's host MPI part then runs at that rate.
GPUS_PER_NODE = 8
IB_BYTES_PER_S = 50e9 / GPUS_PER_NODE
IB_LATENCY = 2e-6
# The `cnn` net's gradient buckets (MpiTeam's 1 MB buckets, cut at layer starts from the last
# layer down): its two dense layers (402,826 floats), then the rest (52,096); the convolutions'
# backward passes, 49% of a step (docs/nn.md profile), run after the first bucket is final.
CNN_BUCKETS = (402826 * 4, 52096 * 4)
CNN_HIDEABLE = 0.49

LEVELS = [8, 9, 10, 11]
GPUS = [1, 2, 8, 64, 512]


def cells_at(level):
    return 10 * 4 ** level + 2


def median(values):
    return statistics.median(values) if values else float("nan")


# ---- what the bench folder measured -------------------------------------------------------
class Rates:
    """Seconds of each transfer by bytes (gpgpu-mpi-rates, 2 ranks), piecewise linear between
    the measured sizes and along the last segment beyond them."""

    def __init__(self, path):
        self.points = {}
        for r in json.load(open(path)):
            self.points.setdefault(r["what"], []).append((r["bytes"], r["seconds"]))
        for v in self.points.values():
            v.sort()

    def __call__(self, what, size):
        p = self.points[what]
        if size <= p[0][0]:
            return p[0][1]
        for (b0, t0), (b1, t1) in zip(p, p[1:]):
            if size <= b1 or (b1, t1) == p[-1]:
                return t0 + (t1 - t0) * (size - b0) / (b1 - b0)
        return p[-1][1]


def is_run(folder, name):
    """Whether a run's folder is `name` or one of its repeats, `name`-r2, -r3, ..."""
    return folder == name or (folder.startswith(name + "-r") and folder[len(name) + 2:].isdigit())


def earth_rates(bench, name):
    """{level: [steps/s, ...]} of the runs mpi/<name>[-rN]-L<level>."""
    out = {}
    for path in glob.glob(os.path.join(bench, "mpi", f"{name}*-L*", "run.json")):
        run = os.path.basename(os.path.dirname(path))
        stem, level = run.rsplit("-L", 1)
        if not is_run(stem, name):
            continue
        out.setdefault(int(level), []).append(json.load(open(path))["steps_per_wall_s"])
    return out


def cnn_rate(bench, name):
    """Images/s (epochs after the first) of each run mpi-cnn/<name>[-rN]."""
    rates = []
    for path in glob.glob(os.path.join(bench, "mpi-cnn", f"{name}*", "history.json")):
        if not is_run(os.path.basename(os.path.dirname(path)), name):
            continue
        epochs = json.load(open(path))["epochs"][1:]
        if epochs:
            rates.append(sum(e["images_per_second"] for e in epochs) / len(epochs))
    return rates


# ---- the partition ------------------------------------------------------------------------
def load_partitions(folder):
    """{(level, ranks): {depth: row}} from every partition-L*.json in `folder`."""
    table = {}
    for path in sorted(glob.glob(os.path.join(folder, "partition-L*.json"))):
        j = json.load(open(path))
        for t in j["tables"]:
            for r in t["rows"]:
                table.setdefault((j["level"], r["ranks"]), {})[t["depth"]] = r
    return table


def halo_cells(partitions, level, ranks, depth):
    """The largest rank's halo of `depth` rings and its links; levels without a measured
    partition scale the finest measured one's by the square root of the cells (a patch's
    boundary grows as the square root of its area; levels 7-9 follow it within 1%). None when
    that depth was not measured for that rank count."""
    if ranks == 1:
        return 0.0, 0
    measured = [lv for (lv, n) in partitions if n == ranks and depth in partitions[(lv, n)]]
    if not measured:
        return None
    base = level if level in measured else max(measured)
    row = partitions[(base, ranks)][depth]
    return row["max_halo"] * math.sqrt(cells_at(level) / cells_at(base)), row["max_links"]


# ---- the earth model ----------------------------------------------------------------------
def earth_work(own, ring, depth, steps):
    """Cells a step computes, on average over the `steps` steps one swap of `depth` rings
    serves, in own-cell units: stage by stage a tendency `valid - 1` rings deep and an update
    `valid - 2` deep (model.cpp), `ring` cells a ring."""
    total, valid = 0.0, 0
    for _ in range(4 * steps):
        if valid < 2:
            valid = depth
        total += own + ring * (TENDENCY_SHARE * (valid - 1) + (1 - TENDENCY_SHARE) * (valid - 2))
        valid -= 2
    return total / (4 * steps)


def halo_steps_for(partitions, level, ranks):
    """The model's default (ModelOptions::halo_steps = 0 on a GPU): the deepest of 8, 4 and 2
    steps a swap whose halo stays within half of a rank's own cells, else 1."""
    own = cells_at(level) / ranks
    for steps in (8, 4, 2):
        h = halo_cells(partitions, level, ranks, 8 * steps)
        if h is not None and h[0] <= own / 2:
            return steps
    return 1


def load_rehearsals(folder):
    """What the rehearse stage (mpi-bench.sh) timed on one GPU: {(level, ranks): (seconds a
    step of the slowest rank timed, steps a swap)} from ranks<N>-rank<R>.json, and {level:
    seconds a step} of its one-process bench (one.json)."""
    ranks, one = {}, {}
    if not folder or not os.path.isdir(folder):
        return ranks, one
    for path in glob.glob(os.path.join(folder, "ranks*-rank*.json")):
        j = json.load(open(path))
        for r in j["rows"]:
            key = (r["level"], j["ranks"])
            t = r["wall_ms_per_step"] * 1e-3
            if key not in ranks or t > ranks[key][0]:
                ranks[key] = (t, r["halo_steps"])
    path = os.path.join(folder, "one.json")
    if os.path.exists(path):
        for r in json.load(open(path))["rows"]:
            one[r["level"]] = r["wall_ms_per_step"] * 1e-3
    return ranks, one


class Earth:
    def __init__(self, one_gpu, rates, partitions, rehearsed=None, bench_one=None):
        """one_gpu: {level: steps/s} of one process (`gpgpu earth` runs); rehearsed: one rank's
        share timed alone on one GPU, {(level, ranks): (seconds a step, steps a swap)};
        bench_one: {level: seconds a step} of one process in the same bench. A rank's step
        costs fixed + per_cell x the cells it computes (earth_work): a least-squares line
        through the one-process runs, the bench's level 7 and every rehearsal (with two
        one-process levels alone: the line through them)."""
        self.rates, self.partitions = rates, partitions
        self.rehearsed = rehearsed or {}
        self.one_gpu = {lv: 1 / r for lv, r in one_gpu.items()}
        points = [(cells_at(lv), t) for lv, t in self.one_gpu.items()]
        points += [(cells_at(lv), t) for lv, t in (bench_one or {}).items() if lv == 7]
        for (level, ranks), (t, steps) in self.rehearsed.items():
            halo = halo_cells(partitions, level, ranks, 8 * steps)
            if halo is not None:
                own = math.ceil(cells_at(level) / ranks)
                points.append((earth_work(own, halo[0] / (8 * steps), 8 * steps, steps), t))
        mx = sum(x for x, _ in points) / len(points)
        my = sum(y for _, y in points) / len(points)
        self.per_cell = (sum((x - mx) * (y - my) for x, y in points) /
                         sum((x - mx) ** 2 for x, _ in points))
        self.fixed = my - self.per_cell * mx
        self.points = len(points)

    def exchange(self, size, links, ranks, inner):
        """The GPU time one swap of `size` bytes each way with `links` neighbours adds to a
        rank's step: the packed halo's way down and the received one's way up (kernels reading
        and writing mapped memory, taken at gpgpu-mpi-rates' mapped copy rates, in the kernels'
        queue), plus whatever of the host's MPI part (the 2-rank message, a latency per further
        link, between nodes InfiniBand's rate instead) outlasts `inner`, the step of the inner
        cells the GPU runs meanwhile (model.cpp)."""
        down, up = (("mapped_download", "mapped_upload") if "mapped_download" in self.rates.points
                    else ("download", "upload"))
        host = self.rates("sendrecv", size) + (links - 1) * self.rates("sendrecv", 4096)
        if ranks > GPUS_PER_NODE:
            host += IB_LATENCY * links + size / IB_BYTES_PER_S - self.rates("sendrecv", size)
        return self.rates(down, size) + self.rates(up, size) + max(0.0, host - inner)

    def kernels(self, level, ranks, steps):
        """Seconds a step of one rank's kernels: rehearsed where that was timed, else the line."""
        if (level, ranks) in self.rehearsed and self.rehearsed[(level, ranks)][1] == steps:
            return self.rehearsed[(level, ranks)][0]
        own = math.ceil(cells_at(level) / ranks)
        if ranks == 1:
            return self.one_gpu.get(level, self.fixed + self.per_cell * own)
        halo, _ = halo_cells(self.partitions, level, ranks, 8 * steps)
        return self.fixed + self.per_cell * earth_work(own, halo / (8 * steps), 8 * steps, steps)

    def step(self, level, ranks, steps=None):
        """(seconds per step of the slowest rank, exchange share, steps a swap)."""
        if ranks == 1:
            return self.kernels(level, 1, 0), 0.0, 0
        steps = steps or halo_steps_for(self.partitions, level, ranks)
        halo, links = halo_cells(self.partitions, level, ranks, 8 * steps)
        compute = self.kernels(level, ranks, steps)
        swap = self.exchange(16 * halo, links, ranks, compute) / steps
        return compute + swap, swap / (compute + swap), steps


# ---- the CNN model ------------------------------------------------------------------------
class Cnn:
    def __init__(self, step_256, step_512, rates):
        self.per_image = (step_512 - step_256) / 256
        self.fixed = step_256 - 256 * self.per_image
        self.rates = rates

    def allreduce(self, size, ranks):
        """Host MPI_Allreduce of `size` bytes: measured for 2 ranks; for more, recursive halving
        and doubling (what Open MPI picks at these sizes): log2 N rounds of the 2-rank cost of
        a share of the data each, and between nodes at InfiniBand's rate."""
        if ranks == 1:
            return 0.0
        rounds = math.ceil(math.log2(ranks))
        # Each rank moves 2 (N - 1) / N of the data in all: relative to 2 ranks (one round, all of it) that is 2 (N - 1) / N times the bytes and
        # log2 N - 1 more latencies.
        share = 2 * (ranks - 1) / ranks
        t = (rounds - 1) * self.rates("allreduce", 4096) + self.rates("allreduce", size * share)
        if ranks > GPUS_PER_NODE:
            t += rounds * IB_LATENCY + 2 * (ranks - 1) / ranks * size / IB_BYTES_PER_S
        return t

    def step(self, ranks, batch):
        """(seconds per step, compute, communication exposed) at `batch` images per GPU. One GL
        queue runs the copies between the kernels (each bucket down, its sum up); the last
        bucket's reduction waits at the end; the first hides behind the convolutions'
        backward pass as far as it can."""
        compute = self.fixed + batch * self.per_image
        if ranks == 1:
            return compute, compute, 0.0
        top, last = CNN_BUCKETS
        # Through a mapped HostBuffer (rates files without mapped rows: the data path's).
        down, up = (("mapped_download", "mapped_upload") if "mapped_download" in self.rates.points
                    else ("download", "upload"))
        copies = sum(self.rates(down, b) + self.rates(up, b) for b in CNN_BUCKETS)
        tail = self.allreduce(last, ranks)
        early = max(0.0, self.allreduce(top, ranks) - CNN_HIDEABLE * compute)
        return compute + copies + tail + early, compute, copies + tail + early


# ---- tables -------------------------------------------------------------------------------
def earth_tables(earth):
    print("**Earth, strong scaling** (case 5, the halo swapped every N steps as the model "
          "chooses by default; steps per second, speed-up over 1 GPU, share of the step the "
          "swaps take, N)\n")
    print("| level | cells | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}" for n in GPUS) + " |")
    print("|---:|---:|" + "---:|" * len(GPUS))
    for level in LEVELS:
        one = earth.step(level, 1)[0]
        row = []
        for n in GPUS:
            t, share, steps = earth.step(level, n)
            row.append(f"{1 / t:,.0f}" if n == 1 else
                       f"{1 / t:,.0f} ({one / t:.2f}x, {100 * share:.0f}%, N={steps})")
        print(f"| {level} | {cells_at(level):,} | " + " | ".join(row) + " |")
    print()


def cnn_tables(cnn):
    print("**CNN (`cnn`), strong scaling at a global batch of 512**\n")
    print("| GPUs | batch per GPU | compute ms | gradients ms (exposed) | step ms | images/s | "
          "speed-up |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    one = cnn.step(1, 512)[0]
    for n in GPUS:
        t, compute, comm = cnn.step(n, 512 / n)
        print(f"| {n} | {512 / n:g} | {1e3 * compute:.3f} | {1e3 * comm:.3f} | {1e3 * t:.3f} | "
              f"{512 / t:,.0f} | {one / t:.2f}x |")
    print()
    print("**CNN, weak scaling** (batch per GPU fixed; efficiency T(1 GPU) / T(N GPUs))\n")
    print("| batch per GPU | " + " | ".join(f"{n} GPUs" for n in GPUS[1:]) + " |")
    print("|---:|" + "---:|" * (len(GPUS) - 1))
    for b in (64, 256, 1024):
        one = cnn.step(1, b)[0]
        print(f"| {b} | " + " | ".join(f"{100 * one / cnn.step(n, b)[0]:.0f}%"
                                       for n in GPUS[1:]) + " |")
    print()


def check(earth, cnn, bench, cnn_bench):
    print("**Predicted against measured on two GPUs** (medians of the runs in the bench "
          "folder; the model never saw them)\n")
    print("| what | measured (runs) | predicted | predicted / measured |")
    print("|---|---:|---:|---:|")
    for level, rates in sorted(earth_rates(bench, "np2").items()):
        got = median(rates)
        want = 1 / earth.step(level, 2)[0]
        runs = ", ".join(f"{r:,.0f}" for r in sorted(rates))
        print(f"| earth level {level}, steps/s | {got:,.0f} ({runs}) | {want:,.0f} | "
              f"{want / got:.2f} |")
    rates = cnn_rate(cnn_bench, "cnn-np2")
    if rates:
        got = median(rates)
        want = 512 / cnn.step(2, 256)[0]
        runs = ", ".join(f"{r:,.0f}" for r in sorted(rates))
        print(f"| CNN, global batch 512, images/s | {got:,.0f} ({runs}) | {want:,.0f} | "
              f"{want / got:.2f} |")
    print()


def depth_check(rates, partitions, folder):
    """The earth runs of one call at several steps a swap (mpi-bench.sh with
    MPI_BENCH_HALO_STEPS): each beside the model (calibrated on that call's one-process runs),
    and a least-squares fit of what the model leaves over, `a + b / N`: b is what a swap costs
    inside the run, a what every step costs besides the model's kernels."""
    one = {lv: median(r) for lv, r in earth_rates(folder, "one").items()}
    if len(one) < 2:
        return
    earth = Earth(one, rates, partitions)
    print(f"**The earth runs of one call by steps a swap** ({folder}; the model calibrated on "
          "that call's one-process runs)\n")
    print("| level | steps a swap N | measured ms a step | model: kernels + swap / N | measured / model |")
    print("|---:|---:|---:|---:|---:|")
    for level in sorted(one):
        xs, ys = [], []
        for steps, name in ((1, "np2h1"), (2, "np2h2"), (4, "np2h4"), (8, "np2"), (16, "np2h16")):
            runs = earth_rates(folder, name).get(level)
            halo = halo_cells(partitions, level, 2, 8 * steps)
            if not runs or halo is None:
                continue
            own = math.ceil(cells_at(level) / 2)
            kernels = earth.fixed + earth.per_cell * earth_work(own, halo[0] / (8 * steps),
                                                                8 * steps, steps)
            swap = earth.exchange(16 * halo[0], halo[1], 2, kernels)
            t = 1 / median(runs)
            xs.append(1 / steps)
            ys.append(t - kernels)
            print(f"| {level} | {steps} | {1e3 * t:.4f} | {1e3 * kernels:.4f} + {1e3 * swap / steps:.4f} | "
                  f"{t / (kernels + swap / steps):.2f} |")
        if len(xs) >= 2:
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            print(f"| {level} | fit | measured - kernels = {1e3 * (my - b * mx):.4f} ms a step + "
                  f"{1e3 * b:.4f} ms / N | | |")
    print()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bench", default="docs/results/h200-x2/2026-11-26-halo-flush-2")
    p.add_argument("--rates", default="docs/results/h200-x2/2026-11-26-halo-flush",
                   help="the folder whose mpi-rates/rates.json times the swaps' parts, when "
                   "not --bench's")
    p.add_argument("--cnn-bench", default="docs/results/h200-x2/2026-11-26-halo-flush",
                   help="the CNN's bench folder (mpi-rates, mpi-cnn), when not --bench")
    p.add_argument("--partition", default="docs/results/llvmpipe/2026-11-26-partition")
    p.add_argument("--depth-runs", default="",
                   help="a call's earth runs at several steps a swap (see depth_check): the mpi "
                   "stage run with MPI_BENCH_HALO_STEPS set")
    p.add_argument("--rehearse", default="",
                   help="the rehearse stage's folder (default: the bench's mpi-rehearse/rehearse)")
    a = p.parse_args()
    rates_file = os.path.join(a.bench, "mpi-rates", "rates.json")
    if not os.path.exists(rates_file):
        rates_file = os.path.join(a.rates, "mpi-rates", "rates.json")
    rates = Rates(rates_file)
    one_gpu = {lv: median(r) for lv, r in earth_rates(a.bench, "one").items()}
    rehearse = a.rehearse or os.path.join(a.bench, "mpi-rehearse", "rehearse")
    rehearsed, bench_one = load_rehearsals(rehearse)
    earth = Earth(one_gpu, rates, load_partitions(a.partition), rehearsed, bench_one)
    cnn_bench = a.cnn_bench or a.bench
    cnn = Cnn(256 / median(cnn_rate(cnn_bench, "cnn-half")),
              512 / median(cnn_rate(cnn_bench, "cnn-np1")),
              Rates(os.path.join(cnn_bench, "mpi-rates", "rates.json")))
    print(f"Calibration (one GPU; earth {a.bench}, CNN {cnn_bench}): earth step {1e3 * earth.fixed:.4f} ms + "
          f"{1e9 * earth.per_cell:.4f} ns a cell computed ({earth.points} points; one process "
          f"at levels {sorted(one_gpu)}: "
          + ", ".join(f"{r:,.0f}" for _, r in sorted(one_gpu.items())) +
          " steps/s; rehearsed ranks: "
          + ", ".join(f"level {lv} / {n}: {1e3 * t:.4f} ms" for (lv, n), (t, _) in
                      sorted(rehearsed.items())) +
          f"); CNN step {1e3 * cnn.fixed:.3f} ms + {1e6 * cnn.per_image:.3f} us an image\n")
    earth_tables(earth)
    cnn_tables(cnn)
    check(earth, cnn, a.bench, cnn_bench)
    if a.depth_runs and os.path.isdir(a.depth_runs):
        depth_check(rates, load_partitions(a.partition), a.depth_runs)


if __name__ == "__main__":
    main()
