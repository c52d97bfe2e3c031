"""Step 3: the model through gpgpu (no onnx package in this process). For each backend:
load_onnx, classify the images (logits to gpgpu-BACKEND.npy), save_onnx (exported.onnx) and
read that back (reimported-BACKEND.npy, compared bit for bit). Then the speed of 10k-image
inference on the first backend: the imported model (BatchNorm folded, the default), the
imported model with BatchNorm kept (the same layers as the native one) and the network built
natively from gpgpu's own files (native/): warm-ups, then rounds that take the three in turn;
medians. Writes gpgpu.json.
Usage: python3 gpgpu_check.py WORK_DIR [--backends compute,cpu] [--rounds 7]"""

import argparse
import json
import pathlib
import time

import numpy as np

import gpgpu


def timed(model, x, batch):
    start = time.perf_counter()
    model.predict(x, batch=batch)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("--backends", default="compute,cpu")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--batch", type=int, default=1000)
    a = p.parse_args()
    work = pathlib.Path(a.work)
    ctx = gpgpu.Context()
    x = np.load(work / "x.npy")
    result = {"device": ctx.renderer, "images": len(x),
              "backends": {}}
    model_path = str(work / "model.onnx")
    for backend in a.backends.split(","):
        model = gpgpu.nn.load_onnx(model_path, ctx=ctx, backend=backend)
        logits = model.predict(x, batch=a.batch)
        np.save(work / f"gpgpu-{backend}.npy", logits)
        gpgpu.nn.save_onnx(model, str(work / "exported.onnx"))
        again = gpgpu.nn.load_onnx(str(work / "exported.onnx"), ctx=ctx, backend=backend)
        relogits = again.predict(x, batch=a.batch)
        np.save(work / f"reimported-{backend}.npy", relogits)
        layers = [str(layer) for layer in model.layers]
        result["backends"][backend] = {
            "layers": layers, "reimported_identical": bool(np.array_equal(relogits, logits))}
        print(f"{backend}: {len(layers)} layers ({', '.join(layers)}); re-imported "
              f"export {'identical' if np.array_equal(relogits, logits) else 'DIFFERENT'}", flush=True)

    backend = a.backends.split(",")[0]
    models = {"imported": gpgpu.nn.load_onnx(model_path, ctx=ctx, backend=backend),
              "imported_batchnorm_kept": gpgpu.nn.load_onnx(model_path, ctx=ctx, backend=backend,
                                                            fold_batchnorm=False),
              "native": gpgpu.nn.load(str(work / "native"), ctx=ctx, backend=backend)}
    for m in models.values():
        for _ in range(2):
            timed(m, x, a.batch)  # warm-up: kernels compiled, tilings tuned or read
    times = {name: [] for name in models}
    for _ in range(a.rounds):
        for name, m in models.items():
            times[name].append(timed(m, x, a.batch))
    medians = {name: float(np.median(t)) for name, t in times.items()}
    result["timing"] = {"backend": backend, "batch": a.batch, "rounds": a.rounds,
                        "median_seconds": medians, "all_seconds": times,
                        "layers": {name: [str(layer) for layer in m.layers]
                                   for name, m in models.items()}}
    native_logits = models["native"].predict(x, batch=a.batch)
    np.save(work / "native.npy", native_logits)
    for name, s in medians.items():
        print(f"{backend}, {len(x)} images: {name} {1e3 * s:.1f} ms "
              f"({s / medians['native']:.3f}x native)")
    (work / "gpgpu.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
