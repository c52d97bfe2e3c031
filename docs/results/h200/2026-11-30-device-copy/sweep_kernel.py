import sys, time
import numpy as np, gpgpu
ctx = gpgpu.Context()
info = ctx.info(); cu = info.get("compute_units", 0) if isinstance(info, dict) else 0; cu = cu or 132

n = 1 << 28
x = gpgpu.Buffer.from_numpy(ctx, np.random.rand(n).astype(np.float32))
y = gpgpu.Buffer(ctx, (n,), np.float32)
probe = np.empty(4, np.float32)
for name in ("each", "sweep"):
    k = gpgpu.ComputeKernel(ctx, open(f"scale_{name}.comp").read())
    items = (1 << 26) if name == "each" else 4 * cu * 256
    def go():
        k.run(x=x, y=y, n=np.uint32(n // 4), alpha=2.0, items=items)
    for _ in range(3): go()
    y.download(probe)
    times = []
    for r in range(5):
        t0 = time.perf_counter()
        for _ in range(20): go()
        y.download(probe)
        times.append((time.perf_counter() - t0) / 20)
    ms = sorted(times)[2] * 1e3
    out = y.to_numpy()
    ok = np.array_equal(out, 2 * x.to_numpy())
    print(f"{name}: {ms:.3f} ms per run, {2 * 4 * n / ms / 1e6:.0f} GB/s, items {items}, {'all equal' if ok else 'MISMATCH'}")
