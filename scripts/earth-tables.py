#!/usr/bin/env python3
"""Tables and convergence plots from the JSON that scripts/device/earth-bench.sh writes.

    scripts/earth-tables.py RESULTS_DIR [--title "H100"] [--plot convergence.png]

Prints Markdown tables (errors and orders for cases 1 and 2, differences against the finest
run for cases 5 and 6 beside GME's published figures, conservation, timings) and, with
--plot, draws the convergence of the normalised l2 errors with gnuplot (when installed).
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

# GME (DWD), L2 normalised height errors against a T511 spectral reference: case 5 at day 15,
# case 6 at day 10 (icon.enes.org/swm/gmeswm/node6.html, tables 4 and 5), by grid points.
GME = {
    5: {10242: 1.3713e-3, 40962: 7.2106e-4, 92162: 6.7526e-4, 368642: 6.6679e-4},
    6: {10242: 9.0148e-3, 40962: 2.8930e-3, 92162: 1.7858e-3, 368642: 9.6893e-4},
}


def load_runs(directory, tag):
    runs = []
    for path in glob.glob(os.path.join(directory, tag, "L*.json")):
        with open(path) as f:
            runs.append(json.load(f))
    return sorted(runs, key=lambda r: r["level"])


def order(prev, cur):
    if prev is None or prev <= 0 or cur <= 0:
        return ""
    return f"{math.log2(prev / cur):.2f}"


def error_table(directory, tag, title):
    runs = load_runs(directory, tag)
    if not runs:
        return ""
    lines = [f"**{title}**", "", "| level | cells | dt (s) | l1 | l2 | linf | order l1 | order l2 | order linf |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    prev = None
    for r in runs:
        e = r["errors"]
        lines.append(f"| {r['level']} | {r['cells']} | {r['dt_s']:.1f} | {e['l1']:.3e} | {e['l2']:.3e} | "
                     f"{e['linf']:.3e} | {order(prev and prev['l1'], e['l1'])} | "
                     f"{order(prev and prev['l2'], e['l2'])} | {order(prev and prev['linf'], e['linf'])} |")
        prev = e
    first = next((r for r in runs if r["level"] == 4), None)
    last = next((r for r in runs if r["level"] == 7), None)
    if first and last:
        o = math.log2(first["errors"]["l2"] / last["errors"]["l2"]) / 3
        lines.append("")
        lines.append(f"l2 order from level 4 to 7: **{o:.2f}**")
    return "\n".join(lines) + "\n"


def compare_table(directory, case):
    path = os.path.join(directory, f"case{case}_compare.json")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        c = json.load(f)
    lines = [f"**Case {case}: normalised l2 height difference at day {c['day']:g} against this model's "
             f"level-{c['reference_level']} run** (GME: against a T511 spectral run)", "",
             "| level | cells | this model | order | GME (same cell count) |", "|---:|---:|---:|---:|---:|"]
    prev = None
    for r in c["rows"]:
        gme = GME[case].get(r["cells"])
        lines.append(f"| {r['level']} | {r['cells']} | {r['l2']:.3e} | {order(prev, r['l2'])} | "
                     f"{f'{gme:.3e}' if gme else ''} |")
        prev = r["l2"]
    return "\n".join(lines) + "\n"


def conservation_table(directory):
    lines = ["| case | level | days | mass drift | energy drift | potential enstrophy drift |",
             "|---|---:|---:|---:|---:|---:|"]
    for tag in ("case1_alpha0", "case1_alpha1.52", "case2", "case5", "case6"):
        for r in load_runs(directory, tag):
            energy = "" if tag.startswith("case1") else f"{r['energy_drift']:+.2e}"
            enstrophy = "" if tag.startswith("case1") else f"{r['enstrophy_drift']:+.2e}"
            lines.append(f"| {tag} | {r['level']} | {r['days']:g} | {r['mass_drift']:+.2e} | {energy} | {enstrophy} |")
    return "\n".join(lines) + "\n"


def speed_table(directory):
    lines = ["| case | level | cells | steps | dt (s) | wall (s) | simulated days per wall second |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for tag in ("case1_alpha0", "case2", "case5", "case6"):
        for r in load_runs(directory, tag):
            lines.append(f"| {tag} | {r['level']} | {r['cells']} | {r['steps']} | {r['dt_s']:.1f} | "
                         f"{r['wall_s']:.2f} | {r['days_per_wall_s']:.3f} |")
    return "\n".join(lines) + "\n"


def bench_table(directory):
    path = os.path.join(directory, "bench.json")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        b = json.load(f)

    def ms(v):
        return f"{v:.4f}" if v is not None and v >= 0 else "n/a"

    lines = [f"Device: {b['device']}; case {b['case']}.", "",
             "| level | variant | cells | steps/s | days/s | wall ms/step | GPU ms/step | kernels ms/step | "
             "tendency / update ms | MB/step | GB/s | x 2994 GB/s | gaps |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in b["rows"]:
        gaps = f"{100 * r['gap_fraction']:.0f}%" if r["gap_fraction"] >= 0 else "n/a"
        lines.append(f"| {r['level']} | {r['variant']} | {r['cells']} | {r['steps_per_s']:.1f} | "
                     f"{r['days_per_s']:.3f} | {ms(r['wall_ms_per_step'])} | {ms(r['gpu_ms_per_step'])} | "
                     f"{ms(r['kernel_ms_per_step'])} | {ms(r['tendency_ms_per_dispatch'])} / "
                     f"{ms(r['update_ms_per_dispatch'])} | {r['bytes_per_step'] / 1e6:.1f} | {r['gb_per_s']:.1f} | "
                     f"{r['fraction_of_cuda_copy']:.3f} | {gaps} |")
    return "\n".join(lines) + "\n"


def plot(directory, output, title):
    if shutil.which("gnuplot") is None:
        print("gnuplot not installed: no plot", file=sys.stderr)
        return
    series = []
    with tempfile.TemporaryDirectory() as tmp:
        for tag, label in (("case1_alpha0", "case 1, alpha 0"), ("case1_alpha1.52", "case 1, alpha pi/2-0.05"),
                           ("case2", "case 2"), ("case2_bisection", "case 2, bisection grid")):
            runs = load_runs(directory, tag)
            if not runs:
                continue
            data = os.path.join(tmp, tag + ".dat")
            with open(data, "w") as f:
                for r in runs:
                    f.write(f"{r['level']} {r['errors']['l2']}\n")
            series.append((data, label))
        for case in (5, 6):
            path = os.path.join(directory, f"case{case}_compare.json")
            if os.path.exists(path):
                with open(path) as fin:
                    c = json.load(fin)
                data = os.path.join(tmp, f"case{case}.dat")
                with open(data, "w") as f:
                    for r in c["rows"]:
                        f.write(f"{r['level']} {r['l2']}\n")
                series.append((data, f"case {case} vs level {c['reference_level']}"))
                gdat = os.path.join(tmp, f"gme{case}.dat")
                levels = {10242: 5, 40962: 6}
                with open(gdat, "w") as f:
                    for cells, l2 in GME[case].items():
                        if cells in levels:
                            f.write(f"{levels[cells]} {l2}\n")
                series.append((gdat, f"GME case {case} (vs T511)"))
        if not series:
            return
        guide = os.path.join(tmp, "second.dat")
        with open(guide, "w") as f:
            for level in range(4, 9):
                f.write(f"{level} {1e-1 * 4.0 ** (4 - level)}\n")
        plots = ", ".join(f"'{d}' using 1:2 with linespoints title '{t}'" for d, t in series)
        plots += f", '{guide}' using 1:2 with lines dashtype 2 lc rgb 'gray' title 'second order'"
        script = f"""set terminal pngcairo size 900,600 font ',11'
set output '{os.path.abspath(output)}'
set title '{title}: normalised l2 height error by grid level'
set logscale y
set format y '10^{{%L}}'
set xlabel 'grid level (cells = 10*4^n + 2)'
set ylabel 'normalised l2 height error'
set xtics 1
set grid
set key outside right
plot {plots}
"""
        subprocess.run(["gnuplot"], input=script.encode(), check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--title", default="")
    parser.add_argument("--plot", default="")
    args = parser.parse_args()
    d = args.directory
    print(f"## {args.title}\n")
    print(error_table(d, "case1_alpha0", "Case 1, cosine bell, alpha = 0, day 12"))
    print(error_table(d, "case1_alpha1.52", "Case 1, cosine bell, alpha = pi/2 - 0.05, day 12"))
    print(error_table(d, "case2", "Case 2, steady geostrophic flow, alpha = 0, day 5"))
    print(error_table(d, "case2_alpha0.79", "Case 2, alpha = pi/4, day 5"))
    print(error_table(d, "case2_bisection", "Case 2 on the unoptimised bisection grid, day 5"))
    print(compare_table(d, 5))
    print(compare_table(d, 6))
    print("**Conservation: relative change over the run (float64 sums of the float32 fields)**\n")
    print(conservation_table(d))
    print("**Simulated days per wall second (the stepping of the runs above, progress syncs included)**\n")
    print(speed_table(d))
    print("**Step timing (`gpgpu earth bench`)**\n")
    print(bench_table(d))
    if args.plot:
        plot(d, args.plot, args.title)


if __name__ == "__main__":
    main()
