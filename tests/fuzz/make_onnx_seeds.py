#!/usr/bin/env python3
"""Writes the seed files of the ONNX fuzzing corpus (tests/fuzz/corpus/onnx).

Needs the onnx package and NumPy (Debian: python3-onnx, python3-numpy). Run from anywhere:
    python3 tests/fuzz/make_onnx_seeds.py [output-dir]

- good-*.onnx: small graphs gpgpu reads (every operator it maps, the NHWC layout tf2onnx
  writes, the shape chain PyTorch writes before a Reshape), with a few weights each, so that
  mutations start from files that reach every handler.
- bad-*.onnx: one defect each (truncated, an unknown operator, a branch, a wrong attribute
  type, raw data of the wrong size, external data, an opset out of range, transposes whose
  perm does not fit the input).
The fuzzer adds its own finds (hash-named files) on top; see tests/fuzz/CMakeLists.txt.
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

RNG = np.random.default_rng(7)


def weights(*shape):
    return RNG.uniform(-0.5, 0.5, shape).astype(np.float32)


def model(nodes, shape, constants=None, opset=13, output=None):
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in (constants or {}).items()]
    graph = helper.make_graph(
        nodes, "seed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", *shape])],
        [helper.make_tensor_value_info(output or nodes[-1].output[0], TensorProto.FLOAT, None)],
        initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    # The checker wants the output's shape: ONNX's inference gives it (onnx 1.12 knows opsets
    # up to 17), else a rank-2 (batch, features) of unknown extents.
    inferred = shape_inference.infer_shapes(m).graph.output[0] if opset <= 17 else None
    if inferred is not None and inferred.type.tensor_type.HasField("shape"):
        m.graph.output[0].CopyFrom(inferred)
    else:
        for _ in range(2):
            m.graph.output[0].type.tensor_type.shape.dim.add()
    return m


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, name=outputs[0], **attrs)


def good():
    bn = {"s": weights(3), "b": weights(3), "m": weights(3), "v": np.ones(3, np.float32)}
    yield "cnn", model([
        node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1", "s", "b", "m", "v"], ["n1"]),
        node("Relu", ["n1"], ["r1"]),
        node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        node("Conv", ["p1", "w2"], ["c2"], strides=[2, 2], pads=[0, 0, 1, 1]),
        node("LeakyRelu", ["c2"], ["r2"], alpha=0.1),
        node("GlobalAveragePool", ["r2"], ["g"]),
        node("Flatten", ["g"], ["f"]),
        node("Gemm", ["f", "w3", "b3"], ["z"], transB=1),
        node("Softmax", ["z"], ["y"], axis=1)], (1, 7, 6),
        {"w1": weights(3, 1, 3, 3), "b1": weights(3), **bn, "w2": weights(4, 3, 2, 2),
         "w3": weights(2, 4), "b3": weights(2)})
    yield "pools", model([
        node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 0, 1, 1], count_include_pad=1, ceil_mode=1),
        node("MaxPool", ["a"], ["y"], kernel_shape=[2, 2], auto_pad="SAME_UPPER")], (2, 6, 5))
    yield "activations", model([
        node("Sigmoid", ["x"], ["a"]), node("Tanh", ["a"], ["b"]),
        node("Clip", ["b", "lo", "hi"], ["c"]), node("Dropout", ["c"], ["d"]),
        node("Identity", ["d"], ["y"])], (5,),
        {"lo": np.array(0, np.float32), "hi": np.array(6, np.float32)})
    yield "affine", model([
        node("Mul", ["x", "k"], ["a"]), node("Sub", ["a", "t"], ["b"]),
        node("Conv", ["b", "w"], ["c"]), node("Div", ["c", "d"], ["y"])], (2, 4, 4),
        {"k": weights(1, 2, 1, 1), "t": np.array(0.5, np.float32), "w": weights(2, 2, 1, 1),
         "d": np.array(2, np.float32)})
    yield "tf2onnx_layout", model([
        node("Transpose", ["x"], ["t"], perm=[0, 3, 1, 2]),
        node("Conv", ["t", "w"], ["c"], auto_pad="SAME_LOWER"),
        node("Transpose", ["c"], ["u"], perm=[0, 2, 3, 1]),
        node("Reshape", ["u", "shape"], ["f"]),
        node("MatMul", ["f", "m"], ["g"]), node("Add", ["g", "b"], ["y"])], (3, 3, 2),
        {"w": weights(2, 2, 2, 2), "shape": np.array([-1, 18], np.int64),
         "m": weights(18, 3), "b": weights(3)})
    yield "shape_chain", model([
        node("Shape", ["x"], ["s"]),
        node("Constant", [], ["i"], value=numpy_helper.from_array(np.array(0, np.int64))),
        node("Gather", ["s", "i"], ["n"]),
        node("Unsqueeze", ["n", "axes"], ["n1"]),
        node("Concat", ["n1", "rest"], ["target"], axis=0),
        node("Reshape", ["x", "target"], ["y"])], (2, 2, 2),
        {"axes": np.array([0], np.int64), "rest": np.array([-1], np.int64)})
    yield "opset10_clip", model([node("Clip", ["x"], ["y"], min=-1.0, max=1.0)], (3,), opset=10)


def bad():
    cnn = dict(good())["cnn"].SerializeToString()
    yield "truncated", cnn[: len(cnn) // 2]
    yield "unknown-operator", model([node("Erf", ["x"], ["y"])], (3,)).SerializeToString()
    yield "branch", model([node("Relu", ["x"], ["a"]), node("Add", ["a", "x"], ["y"])],
                          (3,)).SerializeToString()
    wrong = model([node("LeakyRelu", ["x"], ["y"])], (3,))
    wrong.graph.node[0].attribute.append(helper.make_attribute("alpha", 2))
    yield "wrong-attribute-type", wrong.SerializeToString()
    short = model([node("Conv", ["x", "w"], ["y"])], (1, 3, 3), {"w": weights(1, 1, 2, 2)})
    short.graph.initializer[0].raw_data = short.graph.initializer[0].raw_data[:-4]
    yield "raw-data-short", short.SerializeToString()
    external = model([node("Conv", ["x", "w"], ["y"])], (1, 3, 3), {"w": weights(1, 1, 2, 2)})
    external.graph.initializer[0].data_location = TensorProto.EXTERNAL
    yield "external-data", external.SerializeToString()
    yield "opset-18", model([node("Relu", ["x"], ["y"])], (3,), opset=18).SerializeToString()
    # Transposes whose perm does not fit the input: the checker lets them through, ONNX 1.12's
    # shape inference crashes on the second (the reader must refuse both before it runs).
    yield "transpose-of-a-vector", model([node("Transpose", ["x"], ["y"], perm=[0, 3, 1, 2])],
                                         (4,)).SerializeToString()
    short = dict(good())["tf2onnx_layout"]
    short.graph.node[0].attribute[0].ints.pop()
    yield "transpose-perm-too-short", short.SerializeToString()


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                       pathlib.Path(__file__).parent / "corpus" / "onnx")
    out.mkdir(parents=True, exist_ok=True)
    for name, m in good():
        onnx.checker.check_model(m)  # every good seed is a valid model
        (out / f"good-{name}.onnx").write_bytes(m.SerializeToString())
    for name, data in bad():
        (out / f"bad-{name}.onnx").write_bytes(data)


if __name__ == "__main__":
    main()
