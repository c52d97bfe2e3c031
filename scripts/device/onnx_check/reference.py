"""The float64 truth and its float32 bound for an ONNX model on the check's images
(tests/python/onnx_reference.py), in a process of its own (the onnx package's protobuf never
shares a process with gpgpu's). With --check, onnx.checker validates the file first (the
model gpgpu exported). Writes NAME.npz with v (the float64 logits) and e (the bound), for
the first LIMIT images (default all).
Usage: python3 reference.py WORK_DIR MODEL.onnx NAME [--check] [--limit LIMIT]"""

import pathlib
import sys

import numpy as np
import onnx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "tests" / "python"))
import onnx_reference  # noqa: E402


def main():
    work, model_path, name = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    model = onnx.load(model_path)
    if "--check" in sys.argv:
        onnx.checker.check_model(model)
        print(f"{model_path}: onnx.checker accepts it (opset {model.opset_import[0].version}, "
              f"{len(model.graph.node)} nodes: {' '.join(n.op_type for n in model.graph.node)})")
    x = np.load(work / "x.npy")
    if "--limit" in sys.argv:
        x = x[: int(sys.argv[sys.argv.index("--limit") + 1])]
    v, e = [], []
    for first in range(0, len(x), 500):
        r = onnx_reference.evaluate(model, x[first:first + 500])
        v.append(r.v)
        e.append(r.e)
    np.savez(work / f"{name}.npz", v=np.concatenate(v), e=np.concatenate(e))


if __name__ == "__main__":
    main()
