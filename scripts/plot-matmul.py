#!/usr/bin/env python3
"""Redraws the matmul speed-test charts from a matmul.csv (for results measured on a machine
without gnuplot, such as the H100 here): GFLOPS vs n on log axes, one line per method, like
seed 003's charts. Usage: python3 scripts/plot-matmul.py DIR "device name" DATE"""
import csv, subprocess, sys
from collections import OrderedDict

out_dir, device, date = sys.argv[1], sys.argv[2], sys.argv[3]
series = OrderedDict()
with open(f"{out_dir}/matmul.csv") as f:
    for row in csv.DictReader(f):
        if row["status"] != "ok":
            continue  # skipped or wrong results are not plotted
        series.setdefault(row["method"], []).append(
            (int(row["n"]), float(row["kernel_gflops"]), float(row["wall_gflops"])))
with open(f"{out_dir}/matmul_chart.dat", "w") as f:
    for method, points in series.items():
        f.write(f"# {method}\n")
        for n, k, w in points:
            f.write(f"{n} {k} {w}\n")
        f.write("\n\n")
colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896"]
def plot(column, title, output):
    lines = []
    for i, method in enumerate(series):
        dash = 1 if not method.startswith(("cpu", "cuda")) else 2
        lines.append(f"'matmul_chart.dat' index {i} using 1:{column} with linespoints lw 2 dt {dash} "
                     f"lc rgb '{colours[i % len(colours)]}' pt {i + 1} title \"{method}\"")
    return (f"set output '{output}'\nset title \"{title} — {device} — {date}\"\n"
            "plot " + ", \\\n     ".join(lines) + "\n")
script = ("set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,11'\n"
          "set logscale xy\nset grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
          "set key outside right top\nset xlabel 'matrix size n (n x n times n x n)'\n"
          "set ylabel 'GFLOPS'\nset format y '%g'\n"
          + plot(2, "matmul kernel GFLOPS (data on the device)", "matmul_gflops.png")
          + plot(3, "matmul end-to-end GFLOPS (upload + kernel + download)", "matmul_gflops_end_to_end.png"))
with open(f"{out_dir}/matmul_chart.gp", "w") as f:
    f.write(script)
subprocess.run(["gnuplot", "matmul_chart.gp"], cwd=out_dir, check=True)
print(f"drew {out_dir}/matmul_gflops.png and matmul_gflops_end_to_end.png")
