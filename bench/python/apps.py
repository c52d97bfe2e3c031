#!/usr/bin/env python3
"""What gpgpu.nn and gpgpu.earth cost from Python, as same-run ratios.

1. Training from float32 NumPy arrays (nn::ArrayTrainer: each batch uploaded, the loss and its
   gradient on the host) against training from the same images as uint8 (the device-resident
   data set and nn::Trainer that `gpgpu train` uses), same net, batch and data: images per
   second of each, median of the epochs after a warm-up epoch, and their ratio.
2. The earth model's NetCDF output: seconds to write one record (fields and vorticity
   downloaded, u/v derived, compressed in memory) and to close the file (its bytes written,
   fsynced, renamed), against the seconds of one simulated day of stepping at that level.

Usage: python3 bench/python/apps.py [--net small] [--limit 6000] [--epochs 4] [--level 6]
       [--out DIR]    (prints a table; with --out also writes DIR/python-apps.md)
"""

import argparse
import datetime
import os
import statistics
import tempfile
import time

import numpy as np

import gpgpu
import gpgpu.earth as earth
import gpgpu.nn as nn


def train_rates(args):
    images, labels = nn.load_fashion_mnist("train", limit=args.limit)
    rates = {}
    for name, x in (("float32 arrays (ArrayTrainer)", images.astype(np.float32) / 255),
                    ("uint8 images (Trainer)", images)):
        model = nn.builtin(args.net)
        model.initialize(seed=1)
        history = model.train(x, labels, epochs=args.epochs, batch=model.recipe["batch"],
                              progress=False)
        rates[name] = statistics.median(h["images_per_second"] for h in history[1:])
    return rates, nn.builtin(args.net).active_backend


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def netcdf_costs(args):
    if not earth.netcdf_available:
        return None
    model = earth.Model(case=5, level=args.level)
    day = seconds(lambda: (model.advance(days=1), model.h))  # reading h waits for the GPU
    with tempfile.TemporaryDirectory() as folder:
        out = model.netcdf_writer(os.path.join(folder, "bench.nc"))
        writes = [seconds(out.write) for _ in range(5)]
        close = seconds(out.close)
        size = os.path.getsize(os.path.join(folder, "bench.nc"))
    return day, statistics.median(writes), close, size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", default="small")
    parser.add_argument("--limit", type=int, default=6000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--level", type=int, default=6)
    parser.add_argument("--out")
    args = parser.parse_args()
    ctx = gpgpu.default_context()
    lines = [f"device: {ctx.renderer}; {datetime.date.today()}; python3 bench/python/apps.py "
             f"--net {args.net} --limit {args.limit} --epochs {args.epochs} --level {args.level}",
             ""]
    rates, backend = train_rates(args)
    lines += [f"| training, net {args.net}, backend {backend} | images/s (median of epochs 2..) |",
              "|---|---|"]
    lines += [f"| {name} | {rate:.0f} |" for name, rate in rates.items()]
    values = list(rates.values())
    lines += [f"| ratio float32 / uint8 | {values[0] / values[1]:.2f} |", ""]
    costs = netcdf_costs(args)
    if costs is None:
        lines += ["earth: this build has no libnetcdf (gpgpu.earth.netcdf_available is False)"]
    else:
        day, write, close, size = costs
        lines += [f"| earth case 5, level {args.level} | seconds |", "|---|---|",
                  f"| one simulated day of stepping | {day:.3f} |",
                  f"| one NetCDF record (median of 5) | {write:.4f} |",
                  f"| close (5 records, {size / 1e6:.1f} MB) | {close:.4f} |",
                  f"| ratio record / day | {write / day:.4f} |"]
    text = "\n".join(lines)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "python-apps.md"), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
