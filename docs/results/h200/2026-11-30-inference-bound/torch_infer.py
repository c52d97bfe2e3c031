# Where PyTorch's 10k-image CNN inference spends its GPU time (cuDNN benchmark, TF32 off).
import sys, torch, torch.nn as nn
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = "cuda"
B = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
net = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev).eval()
x = torch.randn(B, 1, 28, 28, device=dev)
def timeit(fn, reps=30):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1e3)
    ts.sort(); return ts[len(ts) // 2]
with torch.no_grad():
    print(f"inference batch {B}: {timeit(lambda: net(x)):.1f} us")
    h = x
    for i, layer in enumerate(net):
        hin = h
        print(f"  layer {i} {layer.__class__.__name__:10s} {timeit(lambda: layer(hin)):9.1f} us")
        h = layer(h)
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(10): net(x)
        torch.cuda.synchronize()
    rows = [(e.key, e.device_time_total / 10, e.count // 10) for e in p.key_averages() if e.device_time_total > 0]
    rows.sort(key=lambda r: -r[1])
    for key, us, n in rows[:14]:
        print(f"  {us:9.1f} us/run  x{n}  {key[:120]}")
