"""Step 5: the comparisons and summary.md. For each backend: gpgpu's logits against the
float64 truth of model.onnx (every logit within its float32 bound e?), the argmax agreement
with PyTorch (target >= 99.9%; with the helper model, with the float64 truth) and the largest
logit difference; the re-imported export (bit-identical, and within the bound of the
exported graph's own float64 truth); the speed ratios (target: imported within 5% of
native). NumPy only.
Usage: python3 summary.py WORK_DIR OUT_DIR"""

import json
import pathlib
import sys

import numpy as np


def main():
    work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    g = json.loads((work / "gpgpu.json").read_text())
    truth = np.load(work / "truth.npz")
    exported = np.load(work / "truth-exported.npz") if (work / "truth-exported.npz").exists() else None
    y = np.load(work / "y.npy")[: g["images"]]
    torch_path = work / "torch.npy"
    framework = np.load(torch_path)[: g["images"]] if torch_path.exists() else None
    other = "PyTorch" if framework is not None else "the float64 truth"
    compare = framework if framework is not None else truth["v"]
    lines = [f"# ONNX check: {g['device']}, {g['images']} Fashion-MNIST test images\n"]
    if (work / "torch.json").exists():
        t = json.loads((work / "torch.json").read_text())
        lines.append(f"PyTorch {t['torch']} on {t['device']}: {t['epochs']} epochs, test accuracy "
                     f"{100 * t['accuracy']:.2f}%, 10k inference {t['inference_ms']:.2f} ms; "
                     f"exported with opset {t['opset']}\n")
    else:
        lines.append("model: the check's CNN written by onnx.helper with random weights (no "
                     "PyTorch here)\n")
    lines.append("Bound: e per logit, the float32 error bound of any evaluation order of the same "
                 "arithmetic (tests/python/onnx_reference.py); two evaluations that each keep it "
                 f"differ by at most 2e. Over these logits e has median "
                 f"{float(np.median(truth['e'])):.3g} and maximum {float(truth['e'].max()):.3g} "
                 f"(the logits' median magnitude: {float(np.median(np.abs(truth['v']))):.3g}).\n")
    lines.append("The bound is a worst case (every rounding in the same direction, sums of "
                 "absolute terms: no cancellation), loose for a deep network (the per-operator "
                 "tests, tests/python/test_nn_onnx.py, are where it is tight); the measured "
                 "differences from the truth below say more.\n")
    lines.append(f"| backend | argmax = {other} | max abs(gpgpu - {other}) | max e | logits outside e "
                 "of the truth | max abs(gpgpu - truth) / e | accuracy | re-import identical | "
                 "export within its e |\n|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for backend, info in g["backends"].items():
        logits = np.load(work / f"gpgpu-{backend}.npy")
        agree = float((logits.argmax(1) == compare.argmax(1)).mean())
        diff = float(np.abs(logits - compare).max())
        outside = int((np.abs(logits - truth["v"]) > truth["e"]).sum())
        ratio = float((np.abs(logits - truth["v"]) / truth["e"]).max())
        accuracy = float((logits.argmax(1) == y).mean())
        export_ok = "-"
        if exported is not None:
            n = len(exported["v"])
            export_ok = str(int((np.abs(np.load(work / f"reimported-{backend}.npy")[:n] - exported["v"])
                                 > exported["e"]).sum()) == 0) + f" ({n} images)"
        lines.append(f"| {backend} | {100 * agree:.2f}% | {diff:.3g} | {float(truth['e'].max()):.3g} "
                     f"| {outside} | {ratio:.3g} | {100 * accuracy:.2f}% | "
                     f"{info['reimported_identical']} | {export_ok} |")
        verdicts.append(f"{backend}: argmax agreement {100 * agree:.2f}% "
                        f"({'meets' if agree >= 0.999 else 'MISSES'} >= 99.9%), "
                        f"{'every logit within' if outside == 0 else f'{outside} logits OUTSIDE'} "
                        "the float32 bound of the truth")
    lines.append(f"\nmax abs(gpgpu - truth): " + ", ".join(
        f"{b} {float(np.abs(np.load(work / f'gpgpu-{b}.npy') - truth['v']).max()):.3g}"
        for b in g["backends"]) + f"; the logits' largest magnitude {float(np.abs(truth['v']).max()):.3g}")
    if framework is not None:
        lines.append(f"max abs(PyTorch - truth): {float(np.abs(framework - truth['v']).max()):.3g}")
        over = int((np.abs(framework - truth["v"]) > truth["e"]).sum())
        lines.append(f"\nPyTorch's own logits outside e of the truth: {over} "
                     f"(max abs(torch - truth) / e = "
                     f"{float((np.abs(framework - truth['v']) / truth['e']).max()):.3f}; cuDNN "
                     "may use algorithms (Winograd, FFT) whose error is not a plain sum's)")
    t = g["timing"]
    med = t["median_seconds"]
    lines.append(f"\n## Speed: {g['images']} images in batches of {t['batch']} on {t['backend']} "
                 f"(median of {t['rounds']} rounds after 2 warm-ups each, taken in turn)\n")
    lines.append("| model | layers | median | ratio to native |\n|---|---|---|---|")
    for name, s in med.items():
        lines.append(f"| {name} | {len(t['layers'][name])} | {1e3 * s:.1f} ms | "
                     f"{s / med['native']:.3f}x |")
    same = med["imported_batchnorm_kept"] / med["native"]
    kept, native = t["layers"]["imported_batchnorm_kept"], t["layers"]["native"]
    if kept == native:
        verdicts.append(f"imported with the native layers: {same:.3f}x native "
                        f"({'within' if abs(same - 1) <= 0.05 else 'OUTSIDE'} 5%); imported with "
                        f"BatchNorm folded: {med['imported'] / med['native']:.3f}x")
    else:  # the exporter folded BatchNorm itself: no import has the native layers
        verdicts.append(f"the file has {len(kept)} layers where the native network has "
                        f"{len(native)} (the exporter folded BatchNorm): imported "
                        f"{med['imported'] / med['native']:.3f}x native")
    lines.append("\n## Verdicts\n")
    lines += [f"- {v}" for v in verdicts]
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
