# Where PyTorch's CNN step spends its GPU time (cuDNN kernels per layer), and cuBLAS at the
# second convolution's GEMM shapes, on random data, batch from argv.
import sys, torch, torch.nn as nn, torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = "cuda"
def timeit(fn, reps=50):
    for _ in range(10): fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1e3)
    ts.sort(); return ts[len(ts) // 2]
for B in [int(x) for x in sys.argv[1:]]:
    print(f"== batch {B}")
    x = torch.randn(B, 32, 14, 14, device=dev, requires_grad=True)
    conv = nn.Conv2d(32, 64, 5, padding=2).to(dev)
    y = conv(x); g = torch.randn_like(y)
    print(f"conv3 forward      {timeit(lambda: conv(x)):8.1f} us")
    print(f"conv3 fwd+bwd      {timeit(lambda: torch.autograd.backward(conv(x), g)):8.1f} us")
    x0 = torch.randn(B, 1, 28, 28, device=dev, requires_grad=True)
    conv0 = nn.Conv2d(1, 32, 5, padding=2).to(dev)
    g0 = torch.randn_like(conv0(x0))
    print(f"conv0 forward      {timeit(lambda: conv0(x0)):8.1f} us")
    print(f"conv0 fwd+bwd      {timeit(lambda: torch.autograd.backward(conv0(x0), g0)):8.1f} us")
    M = B * 196
    for name, (m, k, n) in {"fwd MxKxN": (M, 800, 64), "wgrad": (801, M, 64), "igrad": (M, 1600, 32)}.items():
        a = torch.randn(m, k, device=dev); b = torch.randn(k, n, device=dev)
        us = timeit(lambda: a @ b)
        print(f"cuBLAS {name:10s} {m}x{k}x{n} {us:8.1f} us {2*m*n*k/us/1e6:6.1f} TFLOP/s")
    net = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    xb = torch.randn(B, 1, 28, 28, device=dev); yb = torch.randint(0, 10, (B,), device=dev)
    def step():
        opt.zero_grad(set_to_none=True)
        F.cross_entropy(net(xb), yb).backward(); opt.step()
    print(f"whole step (eager) {timeit(step):8.1f} us")
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(20): step()
        torch.cuda.synchronize()
    rows = [(e.key, e.device_time_total / 20, e.count // 20) for e in p.key_averages() if e.device_time_total > 0]
    rows.sort(key=lambda r: -r[1])
    for key, us, n in rows[:14]:
        print(f"  {us:8.1f} us/step  x{n}  {key[:110]}")
