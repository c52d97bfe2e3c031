#!/usr/bin/env python3
"""PyTorch reference for `gpgpu bench nn`: the same plain 2-conv network (gpgpu's built-in
"cnn": conv 32 5x5 pad 2 - ReLU - maxpool 2 - conv 64 5x5 pad 2 - ReLU - maxpool 2 - dense 128
- ReLU - dense 10), data, batch sizes and optimizer (Adam, lr 1e-3, float32, TF32 off), timed
the same way, on the GPU (--device cuda) or on the CPU (--device cpu --threads N, as `gpgpu bench
nn --cpu-threads` runs it at each of its thread counts).
The images are normalised with the training set's mean and deviation and kept on the device;
each epoch indexes batches from a permutation drawn there (the last incomplete batch dropped,
as gpgpu does), timed with torch.cuda.synchronize() around it; the first epoch of each batch
size is a warm-up (cuDNN algorithm choice, allocator growth). Inference: the test images in
batches of --inference-batch. --cuda-graph replays the training step (forward, loss, backward,
a capturable Adam step) and the inference batches from CUDA graphs: the launch-free reference
for `gpgpu bench dispatch`'s recorded sequences (warm-up steps on a side stream before the
capture, as PyTorch's CUDA graph notes prescribe, are the graph's first-epoch cost).

Usage: python3 bench/nn/torch_cnn.py --data /usr/share/datasets/fashion-mnist \
           --batches 64 256 --epochs 3 --out out/torch-cnn.json
       python3 bench/nn/torch_cnn.py --device cpu --threads 2 --batches 64 --epochs 3 \
           --train-limit 6400 --inference-batch 1000 --out out/torch-cpu.json
"""
import argparse
import gzip
import json
import os
import time

import numpy as np

torch = nn = None  # imported in main(), after the thread settings are in the environment


def import_torch(threads):
    """Imports torch with every pool it may use capped at `threads`: torch.set_num_threads
    sets its own intra-op pool, but a BLAS it links (OpenBLAS in Debian's build) reads its
    thread count from the environment when it loads, and would otherwise run Linear layers
    on all cores."""
    global torch, nn
    if threads:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(threads)
    import torch as t
    torch, nn = t, t.nn


def read_idx(directory, split, kind, rank):
    """The unsigned-byte IDX file <split>-<kind>-<rank>-ubyte of `directory` ('.' for the
    last '-' and .gz allowed) as an array."""
    names = [f"{split}-{kind}{sep}{rank}-ubyte{gz}" for sep in "-." for gz in ("", ".gz")]
    paths = [p for p in (os.path.join(directory, n) for n in names) if os.path.exists(p)]
    if not paths:
        raise FileNotFoundError(f"no {split} {kind} in {directory}")
    with (gzip.open if paths[0].endswith(".gz") else open)(paths[0], "rb") as f:
        data = f.read()
    if data[:3] != b"\0\0\x08":
        raise ValueError(f"{paths[0]}: not an unsigned-byte IDX file")
    rank = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(rank))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(shape)


def load(directory, device, train_limit=0, test_limit=0):
    """Training and test images and labels as tensors on `device`, the first `limit` of each
    (0: all); the images normalised with the whole training set's mean and deviation."""
    splits = [(read_idx(directory, split, "images", "idx3").astype(np.float32) / 255.0,
               read_idx(directory, split, "labels", "idx1").astype(np.int64))
              for split in ("train", "t10k")]
    mean, std = float(splits[0][0].mean()), float(splits[0][0].std())
    tensors = []
    for (x, y), limit in zip(splits, (train_limit, test_limit)):
        x, y = x[:limit or None], y[:limit or None]
        tensors += [torch.from_numpy((x - mean) / std).unsqueeze(1).to(device),
                    torch.from_numpy(y).to(device)]
    return tensors


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        return "cpu"


def make_net():
    return nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


def plain_step(net, opt, loss_fn, x, y):
    """The training step on the batch of x and y at indices `idx`; returns its loss."""
    def step(idx):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x[idx]), y[idx])
        loss.backward()
        opt.step()
        return loss
    return step


def graphed_step(net, opt, loss_fn, x, y, batch):
    """The same for batches of `batch`, captured in a CUDA graph: each batch is copied into
    the graph's static input, then the graph replays."""
    static_x, static_y = x[:batch].clone(), y[:batch].clone()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            loss_fn(net(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        loss = loss_fn(net(static_x), static_y)
        loss.backward()
        opt.step()

    def step(idx):
        torch.index_select(x, 0, idx, out=static_x)
        torch.index_select(y, 0, idx, out=static_y)
        graph.replay()
        return loss
    return step


def train_epoch(step, x, batch):
    """`step` over the batches of a permutation of x (dropping the last incomplete batch); the
    steps and the sum of their losses."""
    perm = torch.randperm(x.shape[0], device=x.device)
    steps = x.shape[0] // batch
    total = torch.zeros((), device=x.device)
    for s in range(steps):
        total += step(perm[s * batch:(s + 1) * batch]).detach()
    return steps, total


def classify(net, test_x, test_y, batch, graphs):
    """Correct predictions over the test set in batches; with `graphs` (a dict, filled on first
    use), each batch size's forward pass replays a CUDA graph of it."""
    correct = 0
    for first in range(0, test_x.shape[0], batch):
        x = test_x[first:first + batch]
        if graphs is None:
            logits = net(x)
        else:
            if first not in graphs:
                static = x.clone()
                net(static)  # warm-up outside the capture
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    out = net(static)
                graphs[first] = (g, static, out)
            g, static, logits = graphs[first]
            static.copy_(x)
            g.replay()
        correct += int((logits.argmax(1) == test_y[first:first + batch]).sum())
    return correct


def upper_median(values):
    return sorted(values)[len(values) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data",
                   default=os.environ.get("GPGPU_NN_DATA", "/usr/share/datasets/fashion-mnist"))
    p.add_argument("--batches", type=int, nargs="+", default=[64, 256])
    p.add_argument("--epochs", type=int, default=3, help="per batch size; the first is a warm-up")
    p.add_argument("--inference-batch", type=int, default=10000)
    p.add_argument("--inference-calls", type=int, default=5,
                   help="timed classifications of the test set (the median is reported), after one "
                        "that builds and a second of warm-up")
    p.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN time its algorithms")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")
    p.add_argument("--train-limit", type=int, default=0, help="train on the first N images")
    p.add_argument("--test-limit", type=int, default=0, help="classify the first N test images")
    p.add_argument("--cuda-graph", action="store_true",
                   help="replay the training step and inference from CUDA graphs (GPU only)")
    p.add_argument("--out", default="")
    a = p.parse_args()
    if a.inference_calls < 1:
        p.error(f"argument --inference-calls: {a.inference_calls} is not a positive count")
    import_torch(a.threads)
    cuda = a.device == "cuda"
    graphed = a.cuda_graph and cuda
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = a.cudnn_benchmark
    if a.threads:
        torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    torch.manual_seed(1)
    train_x, train_y, test_x, test_y = load(a.data, device, a.train_limit, a.test_limit)
    report = {"device": torch.cuda.get_device_name(0) if cuda else cpu_name(),
              "torch": torch.__version__, "threads": torch.get_num_threads(),
              "cudnn": torch.backends.cudnn.version() if cuda else None,
              "cudnn_benchmark": a.cudnn_benchmark, "tf32": False, "cuda_graph": graphed,
              "train_images": int(train_x.shape[0]), "test_images": int(test_x.shape[0]),
              "train": []}
    synchronize = torch.cuda.synchronize if cuda else (lambda: None)
    loss_fn = nn.CrossEntropyLoss()
    for batch in a.batches:
        net = make_net().to(device)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3, capturable=graphed)
        step = None if graphed else plain_step(net, opt, loss_fn, train_x, train_y)
        seconds = []
        for e in range(a.epochs):
            synchronize()
            start = time.perf_counter()
            if step is None:  # captured in the warm-up epoch, as it would be in training
                step = graphed_step(net, opt, loss_fn, train_x, train_y, batch)
            steps, total = train_epoch(step, train_x, batch)
            synchronize()
            seconds.append(time.perf_counter() - start)
            print(f"  batch {batch:4}: epoch {e + 1} of {steps} steps in {seconds[-1]:.3f} s "
                  f"(mean loss {float(total) / steps:.4f})", flush=True)
        steady = upper_median(seconds[1:] or seconds)
        report["train"].append({"batch": batch, "steps": steps, "epoch_seconds": seconds,
                                "steady_epoch_seconds": steady,
                                "images_per_second": steps * batch / steady})
    net.eval()
    times = []
    graphs = {} if graphed else None

    def call():
        synchronize()
        start = time.perf_counter()
        result = classify(net, test_x, test_y, a.inference_batch, graphs)
        synchronize()
        times.append(1e3 * (time.perf_counter() - start))
        return result

    # As `gpgpu bench nn`: one call that builds (graphs, cuDNN's choices), a second of
    # warm-up (the clocks a GPU lowered while the host worked), then the timed calls.
    with torch.no_grad():
        call()
        warm_start = time.perf_counter()
        call()
        while time.perf_counter() - warm_start < 1.0:
            call()
        warmup = len(times) - 1
        correct = [call() for _ in range(a.inference_calls)][-1]
    report.update(inference_ms=times, inference_warmup_calls=warmup,
                  inference_steady_ms=upper_median(times[-a.inference_calls:]),
                  inference_batch=a.inference_batch,
                  test_accuracy_after_bench=correct / test_x.shape[0])
    text = json.dumps(report, indent=2)
    print(text)
    if a.out:
        os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
