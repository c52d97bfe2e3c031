#!/usr/bin/env python3
"""The scaling model's CNN check (scripts/scale-model.py's Cnn) on the eighth session's fully
tuned pairs, from the rates in the calls' tables (cnn.md of calls 5, 6 and 11; the raw histories
stayed on the machines) and the transfer costs of the sixth session's gpgpu-mpi-rates
(s6-8; the transfer code has not changed since). Run from the repository root."""
import importlib.util
import statistics

spec = importlib.util.spec_from_file_location("sm", "scripts/scale-model.py")
sm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sm)
rates = sm.Rates("docs/results/h200-x2/2026-11-26-s6-8-head-stages/mpi-rates/rates.json")
calls = {  # one process at 256, one process at 512, 2 ranks at a global 512 (images/s)
    "call 5": ([135462], [149649, 149253, 149394, 149294, 149204, 149289],
               [219822, 230562, 223115, 220733, 220742, 221588]),
    "call 6": ([117338], [131803, 131537, 131451, 131500], [204720, 197570, 201375, 196723]),
    "call 11": ([137460], [149638, 149181], [236388, 238101]),
}
print("| call | compute a step at 256 | gradients' cost (model) | predicted | measured (median) | predicted / measured |")
print("|---|---:|---:|---:|---:|---:|")
for name, (half, np1, np2) in calls.items():
    cnn = sm.Cnn(256 / statistics.median(half), 512 / statistics.median(np1), rates)
    step, compute, comm = cnn.step(2, 256)
    got = statistics.median(np2)
    print(f"| {name} | {compute * 1e3:.3f} ms | {comm * 1e3:.3f} ms | {512 / step:,.0f} | "
          f"{got:,.0f} | {512 / step / got:.2f} |")
