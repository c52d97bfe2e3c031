#!/usr/bin/env python3
"""The cost of Python around gpgpu, and a SAXPY round trip from NumPy against torch and CuPy.

1. Overhead of k.run(...) from Python over the same C++ call: SAXPY bound to the same NumPy
   arrays (or Buffers), timed from Python, k.run(x=x, y=y, alpha=a), and in C++ (ComputeKernel::
   run on Args bound once, gpgpu._gpgpu._overhead.time_cpp_run). The difference is what Python
   adds: keyword parsing, name lookup, dtype and layout checks, wrapping the arrays' memory,
   the GIL. The binding never copies the data, so it should not grow with the length; the
   binding step alone (no GL call, _overhead.time_bind) is timed too.
2. SAXPY round trip on 2^20 float32 from NumPy and back (y += a * x, y ends up in a NumPy
   array): gpgpu (one k.run), torch (upload both, add_, copy back into y) and CuPy (upload,
   ElementwiseKernel, get(out=y)), in the same process; medians after warm-up.

Usage: python3 bench/python/overhead.py [--out DIR] [--repeats N]
Writes DIR/python-overhead.json and DIR/python-overhead.md (tables with device and date).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import gpgpu
from gpgpu._gpgpu import _overhead

SAXPY = """
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; }
"""


def median_us(seconds):
    return statistics.median(seconds) * 1e6


def sample(call, repeats, warmup=0, reset=None):
    """Seconds of each of `repeats` calls after `warmup` untimed ones; `reset` runs before
    each, outside the timing."""
    out = []
    for i in range(warmup + repeats):
        if reset:
            reset()
        start = time.perf_counter()
        call()
        if i >= warmup:
            out.append(time.perf_counter() - start)
    return out


def overhead_at(ctx, kernel, n, repeats, device_resident):
    """Microseconds of a Python k.run and of the same C++ call, measured in pairs (one of
    each, back to back), so that drifts of the machine (clock, other load) touch both alike;
    the overhead is the median of the paired differences."""
    rng = np.random.default_rng(n)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    if device_resident:
        x, y = gpgpu.Buffer.from_numpy(ctx, x), gpgpu.Buffer.from_numpy(ctx, y)
    args = {"x": x, "y": y, "alpha": 1e-3}
    calls = {"python": lambda: sample(lambda: kernel.run(**args), 1),
             "cpp": lambda: _overhead.time_cpp_run(kernel, 1, **args)}
    for _ in range(5):  # warm-up: first runs compile and allocate
        kernel.run(**args)
        calls["cpp"]()
    ctx.finish()
    times = {"python": [], "cpp": []}
    for i in range(repeats):
        for name in ("cpp", "python") if i % 2 else ("python", "cpp"):  # alternate
            # Each call starts on an idle GPU (a Buffer run returns before the GPU ends).
            ctx.finish()
            times[name] += calls[name]()
    ctx.finish()
    diffs = [p - c for p, c in zip(times["python"], times["cpp"])]
    bind = _overhead.time_bind(kernel, repeats, **args)
    return {"n": n, "device_resident": device_resident, "python_us": median_us(times["python"]),
            "cpp_us": median_us(times["cpp"]), "overhead_us": median_us(diffs),
            "bind_us": median_us(bind), "repeats": len(times["python"])}


def round_trip(ctx, repeats):
    """Each library's SAXPY round trip timed with y reset to y0 before each (untimed); a
    library's `call(y)` gives the call that does one on y, or None where it has no device."""
    n = 1 << 20
    rng = np.random.default_rng(20)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y0 = rng.uniform(-1, 1, n).astype(np.float32)
    alpha = 1.5
    expected = y0.astype(np.float64) + alpha * x.astype(np.float64)
    bound = 2 * 2**-24 * (np.abs(y0) + alpha * np.abs(x))

    def gpgpu_call(y):
        kernel = gpgpu.ComputeKernel(ctx, SAXPY)
        return lambda: kernel.run(x=x, y=y, alpha=alpha)

    def torch_call(y):
        import torch

        if not torch.cuda.is_available():
            return None
        y_host = torch.from_numpy(y)

        def call():
            xd = torch.from_numpy(x).to("cuda")
            yd = torch.from_numpy(y).to("cuda")
            yd.add_(xd, alpha=alpha)
            y_host.copy_(yd)  # device -> the NumPy array's memory; synchronises
        return call

    def cupy_call(y):
        import cupy as cp

        kernel = cp.ElementwiseKernel("float32 x, float32 a", "float32 y", "y += a * x", "saxpy")

        def call():
            xd, yd = cp.asarray(x), cp.asarray(y)
            kernel(xd, np.float32(alpha), yd)
            yd.get(out=y)  # synchronises
        return call

    results = []
    for name, make in (("gpgpu", gpgpu_call), ("torch", torch_call), ("cupy", cupy_call)):
        y = y0.copy()
        try:
            call = make(y)
        except ImportError as e:
            results.append({"name": name, "skipped": f"not importable: {e}"})
            continue
        if call is None:
            results.append({"name": name, "skipped": "no CUDA device"})
            continue
        times = sample(call, repeats, 5, lambda: np.copyto(y, y0))
        ms = statistics.median(times) * 1e3
        results.append({"name": name, "median_ms": ms, "min_ms": min(times) * 1e3,
                        "gb_per_s": 3 * 4 * n / (ms * 1e-3) / 1e9,
                        "correct": bool(np.all(np.abs(y - expected) <= bound)),
                        "repeats": len(times)})
    return {"n": n, "results": results}


def markdown(report):
    lines = [f"Device: {report['device']}; {report['date']}; Python {report['python']}; "
             f"`{report['command']}`", "",
             "| length | data | Python k.run (us) | C++ run (us) | overhead: median of paired "
             "differences (us) | binding alone (us) |",
             "|---:|---|---:|---:|---:|---:|"]
    for r in report["overhead"]:
        where = "Buffers" if r["device_resident"] else "NumPy"
        lines.append(f"| {r['n']} | {where} | {r['python_us']:.1f} | {r['cpp_us']:.1f} | "
                     f"{r['overhead_us']:.1f} | {r['bind_us']:.2f} |")
    lines += ["", f"SAXPY round trip, {report['round_trip']['n']} float32 from NumPy and back "
              "(median):", "", "| library | ms | GB/s (12 B/element) | vs gpgpu | correct |",
              "|---|---:|---:|---:|---|"]
    ours = next(r for r in report["round_trip"]["results"] if r["name"] == "gpgpu")
    for r in report["round_trip"]["results"]:
        if "skipped" in r:
            lines.append(f"| {r['name']} | skipped: {r['skipped']} | | | |")
        else:
            lines.append(f"| {r['name']} | {r['median_ms']:.3f} | {r['gb_per_s']:.2f} | "
                         f"{r['median_ms'] / ours['median_ms']:.2f}x | {r['correct']} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="out/bench-python")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--sizes", default="1,1024,65536,1048576")
    args = parser.parse_args()
    ctx = gpgpu.Context()
    kernel = gpgpu.ComputeKernel(ctx, SAXPY)
    overhead = []
    for resident in (False, True):
        for n in map(int, args.sizes.split(",")):
            # Large host round trips on llvmpipe take milliseconds: fewer repeats there.
            few = n > 65536 and ctx.is_software
            r = overhead_at(ctx, kernel, n, max(20, args.repeats // 10) if few else args.repeats,
                            resident)
            overhead.append(r)
            where = "Buffers" if resident else "NumPy  "
            print(f"n={n:>8} {where}: python {r['python_us']:9.1f} us"
                  f"  C++ {r['cpp_us']:9.1f} us  overhead {r['overhead_us']:6.1f} us"
                  f"  binding {r['bind_us']:5.2f} us", flush=True)
    report = {
        "device": ctx.renderer, "date": datetime.date.today().isoformat(),
        "python": platform.python_version(), "numpy": np.__version__,
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "overhead": overhead,
        "round_trip": round_trip(ctx, max(20, args.repeats // 4)),
    }
    for r in report["round_trip"]["results"]:
        print("round trip:", json.dumps(r), flush=True)
    os.makedirs(args.out, exist_ok=True)
    text = markdown(report)
    for name, content in (("python-overhead.json", json.dumps(report, indent=1)),
                          ("python-overhead.md", text)):
        with open(os.path.join(args.out, name), "w") as f:
            f.write(content)
    print(text)


if __name__ == "__main__":
    main()
