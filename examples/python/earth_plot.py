#!/usr/bin/env python3
"""Run the earth model's test case 2 and plot the fluid depth h with matplotlib.

    /usr/bin/python3 examples/python/earth_plot.py                   # level 6, 5 days
    /usr/bin/python3 examples/python/earth_plot.py --level 3 --days 0.5 --out h.png

Writes a PNG of h on the cells (a scatter of the cell centres, coloured by depth) and of its
difference from the exact solution, and prints the error norms.
"""
import argparse

import matplotlib

matplotlib.use("Agg")  # files, no window
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpgpu.earth as earth  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--level", type=int, default=6, help="grid level: 10 * 4**level + 2 cells")
parser.add_argument("--days", type=float, default=5, help="days to simulate")
parser.add_argument("--out", default="earth_case2.png", help="the PNG to write")
args = parser.parse_args()

model = earth.Model(case=2, level=args.level)  # steady geostrophic flow
model.advance(days=args.days)
h = model.h
lat, lon = model.grid.lat, model.grid.lon
errors = model.diagnostics()["errors"]
print(f"{model.title}, level {args.level}, day {model.days:.2f}: l2 error {errors['l2']:.3e}")

fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), constrained_layout=True)
size = max(1, 40000 / len(h))  # markers that cover the map at any level
shown = top.scatter(lon, lat, c=h, s=size, cmap="viridis", marker="h", linewidths=0)
fig.colorbar(shown, ax=top, label="h (m)")
top.set_title(f"fluid depth h, day {model.days:.2f}")
error = bottom.scatter(lon, lat, c=h - model.analytic_h(), s=size, cmap="RdBu_r", marker="h",
                       linewidths=0)
fig.colorbar(error, ax=bottom, label="h - exact (m)")
bottom.set_title(f"error (l2 {errors['l2']:.2e})")
for ax in (top, bottom):
    ax.set_xlim(-180, 180), ax.set_ylim(-90, 90)
    ax.set_xlabel("longitude"), ax.set_ylabel("latitude")
fig.savefig(args.out, dpi=100)
print(f"wrote {args.out}")
assert np.isfinite(h).all() and errors["l2"] < 1e-2
