# CUDA reference for buffer_memory_probe: torch copy, fill and sum (CUB) of 2^k float32,
# CUDA events, median of 9 after 3; GB/s counts 8 bytes a float for the copy, 4 otherwise.
import sys
import torch

def median_ms(f):
    times = []
    for r in range(12):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize()
        if r >= 3:
            times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]

print(torch.cuda.get_device_name(), "torch", torch.__version__)
print("log2n  way             copy       fill       read")
for k in map(int, sys.argv[1:]):
    n = 1 << k
    a = torch.rand(n, device="cuda")
    b = torch.empty_like(a)
    c = median_ms(lambda: b.copy_(a))
    f = median_ms(lambda: b.fill_(1.0))
    r = median_ms(lambda: a.sum())
    gb = 4 * n / 1e6
    print(f"{k:5d}  {'cuda':9s}  {2 * gb / c:9.0f}  {gb / f:9.0f}  {gb / r:9.0f}")
    del a, b
