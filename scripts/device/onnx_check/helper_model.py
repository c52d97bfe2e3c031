"""Step 1 where PyTorch is not installed (here, on llvmpipe): the check's CNN written with the
onnx package's helper, as torch.onnx.export writes it (Conv, BatchNormalization, Relu,
MaxPool, Flatten, Gemm; dynamic batch; opset 13), with random weights (He-scaled, so that the
logits are of the usual size) instead of trained ones. Writes what torch_model.py writes but
torch.npy: model.onnx, native/, x.npy, y.npy.
Usage: python3 helper_model.py DATA_DIR OUT_DIR [--images N]"""

import argparse
import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import fashion


def random_weights(rng):
    def he(*shape):
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2 / fan_in)).astype(np.float32)

    def bn(prefix, c):
        return {f"{prefix}.weight": rng.uniform(0.5, 1.5, c).astype(np.float32),
                f"{prefix}.bias": rng.uniform(-0.2, 0.2, c).astype(np.float32),
                f"{prefix}.running_mean": rng.uniform(-0.2, 0.2, c).astype(np.float32),
                f"{prefix}.running_var": rng.uniform(0.5, 1.5, c).astype(np.float32)}

    small = lambda *s: rng.uniform(-0.1, 0.1, s).astype(np.float32)  # noqa: E731
    return {"c1.weight": he(32, 1, 3, 3), "c1.bias": small(32), **bn("b1", 32),
            "c2.weight": he(64, 32, 3, 3), "c2.bias": small(64), **bn("b2", 64),
            "d1.weight": he(128, 3136), "d1.bias": small(128),
            "d2.weight": he(10, 128), "d2.bias": small(10)}


def onnx_model(w):
    def bn(x, y, p):
        return helper.make_node("BatchNormalization", [x] + [f"{p}.{k}" for k in (
            "weight", "bias", "running_mean", "running_var")], [y], epsilon=1e-5, momentum=0.9)

    nodes = [
        helper.make_node("Conv", ["x", "c1.weight", "c1.bias"], ["a"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        bn("a", "b", "b1"), helper.make_node("Relu", ["b"], ["c"]),
        helper.make_node("Conv", ["c", "c2.weight", "c2.bias"], ["d"], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[2, 2]),
        bn("d", "e", "b2"), helper.make_node("Relu", ["e"], ["f"]),
        helper.make_node("MaxPool", ["f"], ["g"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["g"], ["h"], axis=1),
        helper.make_node("Gemm", ["h", "d1.weight", "d1.bias"], ["i"], transB=1),
        helper.make_node("Relu", ["i"], ["j"]),
        helper.make_node("Gemm", ["j", "d2.weight", "d2.bias"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "torch_jit", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializer=[numpy_helper.from_array(v, k) for k, v in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    return model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("out")
    p.add_argument("--images", type=int, default=0)
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    w = random_weights(np.random.default_rng(3))
    onnx.save(onnx_model(w), str(out / "model.onnx"))
    fashion.write_native(out / "native", w)
    x, y = fashion.dataset(a.data, "t10k", a.images)
    np.save(out / "x.npy", x)
    np.save(out / "y.npy", y)
    print(f"wrote the helper model and {len(x)} test images to {out}")


if __name__ == "__main__":
    main()
