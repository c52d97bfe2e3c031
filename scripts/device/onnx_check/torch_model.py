"""Step 1 on the GPU machine: trains the check's CNN in PyTorch on Fashion-MNIST for a couple
of epochs, exports it with torch.onnx.export, and writes what the gpgpu step compares with:
  model.onnx      the exported network (dynamic batch; eval mode)
  native/         the same weights in gpgpu's own format (fashion.write_native)
  x.npy, y.npy    the test images (normalised float32) and labels
  torch.npy       PyTorch's logits for them (fp32, TF32 off), torch.json its timing
Usage: python3 torch_model.py DATA_DIR OUT_DIR [--epochs 2] [--opset 13]"""

import argparse
import inspect
import json
import pathlib
import time

import numpy as np
import torch
from torch import nn

import fashion


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 32, 3, padding=1)
        self.b1 = nn.BatchNorm2d(32)
        self.c2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.b2 = nn.BatchNorm2d(64)
        self.d1 = nn.Linear(64 * 7 * 7, 128)
        self.drop = nn.Dropout(0.25)
        self.d2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.b1(self.c1(x)))
        x = torch.max_pool2d(torch.relu(self.b2(self.c2(x))), 2)
        x = torch.flatten(x, 1)
        return self.d2(self.drop(torch.relu(self.d1(x))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("out")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--opset", type=int, default=13)
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(1)
    x_train, y_train = fashion.dataset(a.data, "train")
    x_test, y_test = fashion.dataset(a.data, "t10k")
    net = Net().to(device)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    xt, yt = torch.from_numpy(x_train).to(device), torch.from_numpy(y_train).to(device)
    start = time.time()
    for epoch in range(a.epochs):
        net.train()
        order = torch.randperm(len(xt), device=device)
        for i in range(0, len(xt), 128):
            idx = order[i:i + 128]
            loss = nn.functional.cross_entropy(net(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}", flush=True)
    train_seconds = time.time() - start
    net.eval()
    xs = torch.from_numpy(x_test).to(device)
    with torch.no_grad():
        logits = torch.cat([net(xs[i:i + 1000]) for i in range(0, len(xs), 1000)]).cpu().numpy()
        times = []
        for _ in range(7):
            torch.cuda.synchronize() if device == "cuda" else None
            t = time.perf_counter()
            for i in range(0, len(xs), 1000):
                net(xs[i:i + 1000])
            torch.cuda.synchronize() if device == "cuda" else None
            times.append(time.perf_counter() - t)
    accuracy = float((logits.argmax(1) == y_test).mean())
    print(f"PyTorch test accuracy {100 * accuracy:.2f}%, 10k inference "
          f"{1e3 * sorted(times[2:])[2]:.2f} ms (median after warm-up)")
    np.save(out / "x.npy", x_test)
    np.save(out / "y.npy", y_test)
    np.save(out / "torch.npy", logits.astype(np.float32))
    cpu = net.to("cpu")
    # The TorchScript exporter (torch >= 2.5 also has a dynamo one, which writes opset 18).
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(cpu, torch.zeros(1, 1, 28, 28), str(out / "model.onnx"), opset_version=a.opset,
                      input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}}, **legacy)
    weights = {k: v.detach().numpy() for k, v in cpu.state_dict().items()}
    fashion.write_native(out / "native", weights)
    (out / "torch.json").write_text(json.dumps({
        "torch": torch.__version__, "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
        "epochs": a.epochs, "train_seconds": train_seconds, "accuracy": accuracy,
        "inference_ms": 1e3 * sorted(times[2:])[2], "opset": a.opset}, indent=2))


if __name__ == "__main__":
    main()
