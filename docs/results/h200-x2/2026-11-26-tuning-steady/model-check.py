#!/usr/bin/env python3
"""The scaling model's CNN check (scripts/scale-model.py's Cnn) on the ninth session's pairs
(calls 1 and 2; every GEMM tuned before the timed runs), from the rates in each call's cnn.md
(in d1.tar.gz / d2.tar.gz) and the transfer costs of the sixth session's gpgpu-mpi-rates
(s6-8; the transfer code has not changed since). Run from the repository root."""
import importlib.util
import statistics

spec = importlib.util.spec_from_file_location("sm", "scripts/scale-model.py")
sm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sm)
rates = sm.Rates("docs/results/h200-x2/2026-11-26-mpi-head-stages/mpi-rates/rates.json")
calls = {  # one process at 256, one process at 512, 2 ranks at a global 512 (images/s)
    "call 1, new": ([140974], [154051, 153545], [230544, 239048]),
    "call 1, head": ([127661], [144876, 144873], [218451, 216152]),
    "call 2, new": ([141012], [153816, 153381], [235727, 230952]),
    "call 2, head": ([140307], [153316, 153306], [241523, 237927]),
}
print("| call | compute a step at 256 | gradients' cost (model) | predicted | measured (median) | predicted / measured |")
print("|---|---:|---:|---:|---:|---:|")
for name, (half, np1, np2) in calls.items():
    cnn = sm.Cnn(256 / statistics.median(half), 512 / statistics.median(np1), rates)
    step, compute, comm = cnn.step(2, 256)
    got = statistics.median(np2)
    print(f"| {name} | {compute * 1e3:.3f} ms | {comm * 1e3:.3f} ms | {512 / step:,.0f} | "
          f"{got:,.0f} | {512 / step / got:.2f} |")
