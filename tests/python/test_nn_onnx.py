"""gpgpu.nn's ONNX import and export, against a float64 NumPy evaluation of the same graphs.

Every graph here is written with the onnx package's helper (as torch.onnx.export and tf2onnx
write theirs: the same operators, attributes and constant chains), read by gpgpu, run on the
compute, cpu and transform-feedback backends on random inputs with odd extents (batch 1
and 3), and compared element by element with onnx_reference.evaluate, whose float32 bounds
are derived in its docstring. Each case runs twice on the same model with fresh inputs, so an
output element a kernel failed to write keeps the first run's value and fails the second
check. Exported graphs are checked by onnx.checker and evaluated by the same reference.
"""

import numpy as np
import pytest

import gpgpu

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import onnx_reference as ref  # noqa: E402
from conftest import random_floats  # noqa: E402

BACKENDS = ["compute", "cpu", "transform-feedback"]


def make_model(nodes, input_shape, constants=None, opset=13, batch="N"):
    """A checked model of `nodes` taking x (batch, *input_shape)."""
    inits = [numpy_helper.from_array(np.asarray(v), name) for name, v in (constants or {}).items()]
    out = nodes[-1].output[0]
    graph = helper.make_graph(
        nodes, "case", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, *input_shape])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return with_output_type(model, input_shape)


def with_output_type(model, input_shape):
    """The model with its output's type as ONNX's shape inference gives it (the checker wants
    one), or of the reference's rank where inference leaves it open; checked."""
    inferred = onnx.shape_inference.infer_shapes(model)
    out = model.graph.output[0]
    if inferred.graph.output[0].type.tensor_type.HasField("shape"):
        out.CopyFrom(inferred.graph.output[0])
    else:
        rank = ref.evaluate(model, np.zeros((1, *input_shape), np.float32)).v.ndim
        for _ in range(rank):
            out.type.tensor_type.shape.dim.add()
    onnx.checker.check_model(model)
    return model


def weights(rng, *shape):
    return random_floats(rng, shape, 0.1, 0.6)


def expect_close(got, want, what):
    assert got.shape == want.v.shape, f"{what}: shape {got.shape}, expected {want.v.shape}"
    bad = np.abs(got.astype(np.float64) - want.v) > want.e
    if bad.any():
        at = np.argwhere(bad)[:5]
        lines = [f"{tuple(i)}: got {got[tuple(i)]!r}, want {want.v[tuple(i)]!r} "
                 f"+- {want.e[tuple(i)]:.3g}" for i in at]
        pytest.fail(f"{what}: {bad.sum()} of {bad.size} outside the float32 bound\n"
                    + "\n".join(lines))


def run_case(ctx, rng, model, sample_shape, backend, fold=True, batches=(1, 3), to_gpgpu=None):
    net = gpgpu.nn.read_onnx(model.SerializeToString(), ctx=ctx, fold_batchnorm=fold)
    net.backend = backend
    assert net.backend == backend
    for batch in batches:
        for round_ in range(2):
            x = random_floats(rng, (batch, *sample_shape))
            got = net.predict(to_gpgpu(x) if to_gpgpu else x)
            expect_close(got, ref.evaluate(model, x), f"batch {batch}, round {round_}")
    return net


# --- one case per operator and setting: (nodes, sample shape, constants[, opset]) --------

def conv_case(rng, shape, filters, k, bias=True, **attrs):
    c = {"w": weights(rng, filters, shape[0], k, k)}
    inputs = ["x", "w"]
    if bias:
        c["b"] = weights(rng, filters)
        inputs.append("b")
    return [helper.make_node("Conv", inputs, ["y"], name="conv", **attrs)], shape, c


def pool_case(op, shape, **attrs):
    return [helper.make_node(op, ["x"], ["y"], name="pool", **attrs)], shape, {}


def unary_case(op, shape, **attrs):
    return [helper.make_node(op, ["x"], ["y"], name=op.lower(), **attrs)], shape, {}


def gemm_case(rng, features, units, trans_b, c_shape, **attrs):
    b = weights(rng, units, features) if trans_b else weights(rng, features, units)
    c = {"b": b, "c": weights(rng, *c_shape)}
    node = helper.make_node("Gemm", ["x", "b", "c"], ["y"], name="gemm", transB=trans_b, **attrs)
    return [node], (features,), c


def batchnorm_constants(rng, channels, prefix=""):
    return {prefix + "scale": weights(rng, channels), prefix + "bias": weights(rng, channels),
            prefix + "mean": weights(rng, channels),
            prefix + "var": rng.uniform(0.5, 1.5, channels).astype(np.float32)}


def batchnorm_node(x, y, prefix=""):
    return helper.make_node("BatchNormalization",
                            [x, prefix + "scale", prefix + "bias", prefix + "mean", prefix + "var"],
                            [y], name="bn", epsilon=1e-3)


def const(name, value):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(value), name + "_value"))


def cases(rng):
    f = np.float32
    c = {
        "conv_pads1_stride2": conv_case(rng, (3, 11, 10), 4, 3, pads=[1, 1, 1, 1], strides=[2, 2]),
        "conv_same_upper_even_kernel": conv_case(rng, (2, 9, 8), 3, 4, bias=False,
                                                 auto_pad="SAME_UPPER", strides=[2, 2]),
        "conv_same_lower": conv_case(rng, (2, 7, 6), 2, 2, auto_pad="SAME_LOWER"),
        "conv_asymmetric_pads": conv_case(rng, (1, 8, 9), 3, 3, pads=[0, 1, 2, 1]),
        "conv_1x1_no_bias": conv_case(rng, (5, 4, 3), 2, 1, bias=False),
        "maxpool_pads_ceil": pool_case("MaxPool", (2, 7, 6), kernel_shape=[3, 3], strides=[2, 2],
                                       pads=[1, 1, 1, 1], ceil_mode=1),
        "maxpool_default_stride_1": pool_case("MaxPool", (2, 5, 6), kernel_shape=[2, 2]),
        "avgpool_count_include_pad_ceil": pool_case(
            "AveragePool", (2, 8, 7), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
            ceil_mode=1, count_include_pad=1),
        "avgpool_exclude_pad_asymmetric": pool_case(
            "AveragePool", (3, 6, 7), kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 1, 0]),
        "avgpool_same_upper": pool_case("AveragePool", (1, 7, 7), kernel_shape=[2, 2],
                                        strides=[2, 2], auto_pad="SAME_UPPER"),
        "global_average_pool": pool_case("GlobalAveragePool", (3, 5, 7)),
        "gemm_transB_alpha_beta": gemm_case(rng, 13, 7, 1, (7,), alpha=0.5, beta=2.0),
        "gemm_no_trans_c_row": gemm_case(rng, 9, 5, 0, (1, 5)),
        "relu": unary_case("Relu", (3, 5, 7)),
        "leaky_relu": unary_case("LeakyRelu", (3, 5, 7), alpha=0.2),
        "sigmoid": unary_case("Sigmoid", (11,)),
        "tanh": unary_case("Tanh", (2, 3, 5)),
        "softmax_axis_default": unary_case("Softmax", (9,)),
        "flatten": unary_case("Flatten", (2, 3, 5)),
    }
    c["matmul_add"] = (
        [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Add", ["t", "b"], ["y"])],
        (11,), {"w": weights(rng, 11, 6), "b": weights(rng, 6)})
    c["clip_relu6"] = (
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], (2, 5, 5),
        {"lo": np.array(0, f), "hi": np.array(0.5, f)})
    c["clip_min_only"] = ([helper.make_node("Clip", ["x", "lo"], ["y"])], (7,),
                          {"lo": np.array(-0.3, f)})
    c["clip_opset10_attributes"] = (
        [helper.make_node("Clip", ["x"], ["y"], min=-0.4, max=0.2)], (2, 3, 3), {}, 10)
    c["softmax_opset11"] = ([helper.make_node("Softmax", ["x"], ["y"])], (6,), {}, 11)
    c["dropout_opset12_identity"] = (
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Dropout", ["r", "ratio"], ["d"]),
         helper.make_node("Identity", ["d"], ["y"])], (2, 3, 4), {"ratio": np.array(0.5, f)}, 12)
    c["batchnorm_image"] = ([batchnorm_node("x", "y")], (3, 4, 5), batchnorm_constants(rng, 3))
    conv_bn = conv_case(rng, (2, 6, 5), 3, 3, pads=[1, 1, 1, 1])
    c["conv_batchnorm"] = (conv_bn[0] + [batchnorm_node("y", "z")], (2, 6, 5),
                           {**conv_bn[2], **batchnorm_constants(rng, 3)})
    g = gemm_case(rng, 8, 6, 1, (6,))
    c["gemm_batchnorm"] = (g[0] + [batchnorm_node("y", "z")], (8,),
                           {**g[2], **batchnorm_constants(rng, 6)})
    c["mul_add_per_channel_after_conv"] = (
        conv_bn[0] + [helper.make_node("Mul", ["y", "s"], ["t"]),
                      helper.make_node("Add", ["t", "a"], ["z"])], (2, 6, 5),
        {**conv_bn[2], "s": weights(rng, 3, 1, 1), "a": weights(rng, 1, 3, 1, 1)})
    c["sub_div_before_unpadded_conv"] = (
        [helper.make_node("Sub", ["x", "m"], ["t"]), helper.make_node("Div", ["t", "d"], ["u"]),
         helper.make_node("Conv", ["u", "w", "b"], ["y"])], (2, 5, 6),
        {"m": weights(rng, 2, 1, 1), "d": np.array(0.7, f), "w": weights(rng, 3, 2, 2, 2),
         "b": weights(rng, 3)})
    c["mul_before_padded_conv"] = (
        [helper.make_node("Mul", ["x", "s"], ["t"]),
         helper.make_node("Conv", ["t", "w"], ["y"], pads=[1, 1, 1, 1])], (2, 5, 4),
        {"s": np.array(1.5, f), "w": weights(rng, 2, 2, 3, 3)})
    c["constant_first_sub_then_pool"] = (
        [helper.make_node("Sub", ["k", "x"], ["t"]),
         helper.make_node("MaxPool", ["t"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        (3, 6, 5), {"k": weights(rng, 1, 3, 1, 1)})
    c["add_scalar_standalone"] = (
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "k"], ["y"])],
        (4, 3, 3), {"k": np.array(0.25, f)})
    c["reshape_constant_target"] = (
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], (2, 3, 4),
        {"shape": np.array([-1, 24], np.int64)})
    c["reshape_by_shape_chain"] = (
        [helper.make_node("Shape", ["x"], ["s"]), const("zero", np.array(0, np.int64)),
         helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         const("axes", np.array([0], np.int64)),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
         const("rest", np.array([-1], np.int64)),
         helper.make_node("Concat", ["n1", "rest"], ["target"], axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"])], (3, 2, 5), {})
    c["global_pool_squeeze"] = (
        [helper.make_node("GlobalAveragePool", ["x"], ["p"]),
         helper.make_node("Squeeze", ["p", "axes"], ["y"])], (4, 3, 5),
        {"axes": np.array([2, 3], np.int64)})
    return c


CASE_NAMES = sorted(cases(np.random.default_rng(0)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", CASE_NAMES)
def test_operator_matches_float64_reference(ctx, rng, name, backend):
    case = cases(rng)[name]
    nodes, shape, constants = case[:3]
    opset = case[3] if len(case) > 3 else 13
    run_case(ctx, rng, make_model(nodes, shape, constants, opset), shape, backend)


@pytest.mark.parametrize("backend", ["compute", "cpu"])
def test_batchnorm_kept_as_layer_without_folding(ctx, rng, backend):
    nodes, shape, constants = cases(rng)["conv_batchnorm"]
    net = run_case(ctx, rng, make_model(nodes, shape, constants), shape, backend, fold=False)
    assert [layer.type for layer in net.layers] == ["conv2d", "batchnorm"]
    folded = gpgpu.nn.read_onnx(make_model(nodes, shape, constants).SerializeToString(), ctx=ctx)
    assert [layer.type for layer in folded.layers] == ["conv2d"]


def cnn(rng):
    """A small CNN as torch.onnx.export writes one (batch 1 static), every usual operator."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        batchnorm_node("c1", "n1", "bn1_"),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("LeakyRelu", ["c2"], ["r2"], alpha=0.1),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], axis=1),
    ]
    constants = {"w1": weights(rng, 4, 1, 3, 3), "b1": weights(rng, 4),
                 **batchnorm_constants(rng, 4, "bn1_"),
                 "w2": weights(rng, 6, 4, 3, 3), "b2": weights(rng, 6),
                 "w3": weights(rng, 5, 6), "b3": weights(rng, 5)}
    return nodes, (1, 13, 11), constants


@pytest.mark.parametrize("backend", BACKENDS)
def test_cnn_batch_1(ctx, rng, backend):
    nodes, shape, constants = cnn(rng)
    run_case(ctx, rng, make_model(nodes, shape, constants, batch=1), shape, backend, batches=(1,))


@pytest.mark.parametrize("opset", [7, 9, 11, 15, 17])
def test_operators_across_opsets(ctx, rng, opset):
    """The operators every opset from 7 to 17 spells the same way (BatchNormalization's
    spatial attribute before 9 left at its default, Softmax's axis default)."""
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        batchnorm_node("c", "n"),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "w2", "b2"], ["g"], transB=1),
        helper.make_node("Softmax", ["g"], ["y"]),
    ]
    constants = {"w": weights(rng, 3, 2, 3, 3), "b": weights(rng, 3),
                 **batchnorm_constants(rng, 3), "w2": weights(rng, 4, 3 * 3 * 2),
                 "b2": weights(rng, 4)}
    run_case(ctx, rng, make_model(nodes, (2, 7, 5), constants, opset), (2, 7, 5), "cpu")


@pytest.mark.parametrize("backend", ["compute", "cpu"])
def test_tf2onnx_layout_nhwc_input_and_flatten(ctx, rng, backend):
    """tf2onnx: an NHWC input transposed to NCHW, and NCHW transposed back before the flatten
    that feeds Keras' Dense (MatMul + Add). gpgpu's model takes NCHW."""
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["xt", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Transpose", ["r"], ["rt"], perm=[0, 2, 3, 1]),
        helper.make_node("Reshape", ["rt", "shape"], ["f"]),
        helper.make_node("MatMul", ["f", "w2"], ["m"]),
        helper.make_node("Add", ["m", "b2"], ["y"]),
    ]
    constants = {"w": weights(rng, 3, 2, 3, 3), "b": weights(rng, 3),
                 "shape": np.array([-1, 5 * 4 * 3], np.int64), "w2": weights(rng, 60, 7),
                 "b2": weights(rng, 7)}
    model = make_model(nodes, (5, 4, 2), constants)
    net = run_case(ctx, rng, model, (5, 4, 2), backend, to_gpgpu=lambda x: np.ascontiguousarray(
        x.transpose(0, 3, 1, 2)))
    assert net.input_shape == (2, 5, 4)


@pytest.mark.parametrize("backend", ["compute", "cpu"])
def test_export_is_valid_onnx_and_reimports_identically(ctx, rng, backend, tmp_path):
    nodes, shape, constants = cnn(rng)
    net = gpgpu.nn.read_onnx(make_model(nodes, shape, constants).SerializeToString(), ctx=ctx,
                             backend=backend, fold_batchnorm=False)
    path = tmp_path / "out.onnx"
    gpgpu.nn.save_onnx(net, str(path))
    exported = onnx.load(str(path))
    onnx.checker.check_model(exported)
    assert exported.producer_name == "gpgpu"
    assert exported.opset_import[0].version == 13
    assert [n.op_type for n in exported.graph.node] == [
        "Conv", "BatchNormalization", "Relu", "MaxPool", "Conv", "LeakyRelu",
        "GlobalAveragePool", "Flatten", "Gemm", "Softmax"]
    again = gpgpu.nn.load_onnx(str(path), ctx=ctx, backend=backend, fold_batchnorm=False)
    assert again.active_backend == net.active_backend == backend
    assert again.layers == net.layers
    assert len(gpgpu.nn.load(str(path), ctx=ctx).layers) == len(net.layers) - 1  # BN folded
    assert gpgpu.nn.onnx_bytes(net) == path.read_bytes()
    for batch in (1, 4):
        x = random_floats(rng, (batch, *shape))
        got = net.predict(x)
        expect_close(got, ref.evaluate(exported, x), f"exported graph, batch {batch}")
        np.testing.assert_array_equal(again.predict(x), got)


def test_padded_pools_and_asymmetric_conv_export(ctx, rng):
    """The settings ONNX has and the first gpgpu layers lacked survive export: asymmetric
    pads, ceil_mode, count_include_pad, Clip bounds."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[0, 1, 2, 1], strides=[2, 2]),
        helper.make_node("Clip", ["c", "lo", "hi"], ["k"]),
        helper.make_node("AveragePool", ["k"], ["a"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=0),
        helper.make_node("MaxPool", ["a"], ["y"], kernel_shape=[2, 2], pads=[1, 0, 0, 1]),
    ]
    constants = {"w": weights(rng, 3, 2, 3, 3), "lo": np.array(-0.2, np.float32),
                 "hi": np.array(0.3, np.float32)}
    net = gpgpu.nn.read_onnx(make_model(nodes, (2, 13, 12), constants).SerializeToString(),
                             ctx=ctx, backend="cpu")
    exported = onnx.load_from_string(gpgpu.nn.onnx_bytes(net))
    onnx.checker.check_model(exported)
    x = random_floats(rng, (2, 2, 13, 12))
    expect_close(net.predict(x), ref.evaluate(exported, x), "exported graph")
    expect_close(net.predict(x), ref.evaluate(make_model(nodes, (2, 13, 12), constants), x),
                 "original graph")


@pytest.mark.parametrize("backend", BACKENDS)
def test_layer_classes_compute_what_the_onnx_operators_do(ctx, rng, backend, tmp_path):
    """A model built in Python from gpgpu.nn's layer classes (per-side convolution padding,
    padded and ceil-mode pools with and without count_include_pad, LeakyReLU, Clip,
    GlobalAvgPool2D) against a graph of the same ONNX operators written by hand, evaluated by
    the float64 reference: each class means what its ONNX operator means. The model then
    survives JSON, save/load and ONNX export unchanged."""
    nn = gpgpu.nn
    layers = [nn.Conv2D(3, kernel=3, stride=2, pads=(0, 1, 2, 1)),  # (2, 13, 12) -> (3, 7, 6)
              nn.LeakyReLU(0.2),
              nn.MaxPool2D(3, stride=2, padding=1, ceil_mode=True),  # -> (3, 4, 4)
              nn.Clip(-0.3, 0.4),
              nn.AvgPool2D(2, stride=1, pads=(1, 0, 0, 1), count_include_pad=False),  # (3, 4, 4)
              nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True),  # -> (3, 3, 3)
              nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(4)]
    net = nn.Sequential((2, 13, 12), layers, ctx=ctx, backend=backend)
    params = {"00_weight": weights(rng, 3, 2, 3, 3), "00_bias": weights(rng, 3),
              "08_weight": weights(rng, 4, 3), "08_bias": weights(rng, 4)}
    net.set_parameters(params)
    assert net.output_shape == (4,)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[0, 1, 2, 1], strides=[2, 2]),
        helper.make_node("LeakyRelu", ["c"], ["l"], alpha=0.2),
        helper.make_node("MaxPool", ["l"], ["m"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], ceil_mode=1),
        helper.make_node("Clip", ["m", "lo", "hi"], ["k"]),
        helper.make_node("AveragePool", ["k"], ["a1"], kernel_shape=[2, 2], strides=[1, 1],
                         pads=[1, 0, 0, 1], count_include_pad=0),
        helper.make_node("AveragePool", ["a1"], ["a2"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1),
        helper.make_node("GlobalAveragePool", ["a2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w2", "b2"], ["y"], transB=1),
    ]
    constants = {"w": params["00_weight"], "b": params["00_bias"],
                 "lo": np.array(-0.3, np.float32), "hi": np.array(0.4, np.float32),
                 "w2": params["08_weight"], "b2": params["08_bias"]}
    graph = make_model(nodes, (2, 13, 12), constants)
    for batch in (1, 3):
        for round_ in range(2):
            x = random_floats(rng, (batch, 2, 13, 12))
            expect_close(net.predict(x), ref.evaluate(graph, x), f"batch {batch}, round {round_}")

    assert [layer.type for layer in net.layers] == [
        "conv2d", "leakyrelu", "maxpool2d", "clip", "avgpool2d", "avgpool2d", "globalavgpool2d",
        "flatten", "dense"]
    assert net.layers == layers
    for name in ("leakyrelu", "clip", "globalavgpool2d", "ceil mode", "padding not counted",
                 "padding (top 0, left 1, bottom 2, right 1)"):
        assert name in net.summary(), name
    assert nn.from_json(net.to_json(), ctx=ctx).layers == layers
    x = random_floats(rng, (3, 2, 13, 12))
    net.save(str(tmp_path / "model.npz"))
    nn.save_onnx(net, str(tmp_path / "model.onnx"))
    for path in (tmp_path / "model.npz", tmp_path / "model.onnx"):  # load goes by extension
        again = nn.load(str(path), ctx=ctx, backend=backend)
        assert again.layers == layers, path
        np.testing.assert_array_equal(again.predict(x), net.predict(x))


# --- errors: each its own, naming the node and operator --------------------------------


def error_of(ctx, model_or_bytes, **kwargs):
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else \
        model_or_bytes.SerializeToString()
    with pytest.raises(gpgpu.Error) as info:
        gpgpu.nn.read_onnx(data, ctx=ctx, **kwargs)
    return info


def small_conv_model(rng, **attrs):
    nodes, shape, constants = conv_case(rng, (2, 6, 6), 3, 3, **attrs)
    return make_model(nodes, shape, constants)


def test_truncated_and_garbage_files_are_format_errors(ctx, rng, tmp_path):
    data = small_conv_model(rng).SerializeToString()
    for cut in (len(data) // 2, len(data) - 3, 1):
        info = error_of(ctx, data[:cut])
        assert info.type is gpgpu.FormatError, info.value
        assert "not an ONNX model" in str(info.value) or "checker" in str(info.value)
    info = error_of(ctx, b"\x00\xff" * 50)
    assert info.type is gpgpu.FormatError
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(gpgpu.FormatError, match="cut.onnx"):
        gpgpu.nn.load_onnx(str(path), ctx=ctx)


def test_unknown_operator_names_node_and_operator(ctx):
    model = make_model([helper.make_node("Relu", ["x"], ["r"], name="act"),
                        helper.make_node("Celu", ["r"], ["y"], name="fancy")], (4,))
    info = error_of(ctx, model)
    assert info.type is gpgpu.UnsupportedError
    message = str(info.value)
    assert "node 1 'fancy' (Celu)" in message and "not supported" in message
    assert "Conv" in message  # the operators that are


def test_wrong_attribute_type_is_a_format_error_naming_it(ctx, rng):
    model = small_conv_model(rng)
    attr = helper.make_attribute("strides", [2.0, 2.0])  # FLOATS where INTS belong
    model.graph.node[0].attribute.append(attr)
    info = error_of(ctx, model.SerializeToString())
    assert info.type is gpgpu.FormatError
    assert "conv" in str(info.value) and "strides" in str(info.value)


def test_unsupported_attribute_values_name_node_and_attribute(ctx, rng):
    for attrs, words in [({"dilations": [2, 2]}, ["dilations"]),
                         ({"kernel_shape": [3, 3], "strides": [1, 2]}, ["strides", "square"])]:
        info = error_of(ctx, small_conv_model(rng, **attrs))
        assert info.type is gpgpu.UnsupportedError
        for w in ["node 0 'conv' (Conv)"] + words:
            assert w in str(info.value), (w, str(info.value))
    grouped = make_model([helper.make_node("Conv", ["x", "w"], ["y"], name="dw", group=2)],
                         (2, 5, 5), {"w": weights(rng, 2, 1, 3, 3)})
    info = error_of(ctx, grouped)
    assert info.type is gpgpu.UnsupportedError and "group = 2" in str(info.value)


def test_branches_are_refused_by_name(ctx, rng):
    residual = make_model(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Add", ["c", "x"], ["y"], name="skip")], (2, 4, 4),
        {"w": weights(rng, 2, 2, 3, 3)})
    info = error_of(ctx, residual)
    assert info.type is gpgpu.UnsupportedError
    assert "node 1 'skip' (Add)" in str(info.value) and "joins two paths" in str(info.value)
    concat = make_model(
        [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Sigmoid", ["x"], ["b"]),
         helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=1)], (2, 3, 3))
    info = error_of(ctx, concat)
    assert "node 1 (Sigmoid)" in str(info.value) and "not the output of the layer before" in \
        str(info.value)


def test_other_refusals(ctx, rng):
    opset18 = make_model([helper.make_node("Relu", ["x"], ["y"])], (3,))
    opset18.opset_import[0].version = 18
    assert "opset 18" in str(error_of(ctx, opset18).value)
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y", "i"], name="mp", kernel_shape=[2, 2])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1, 3, 3]),
         helper.make_tensor_value_info("i", TensorProto.INT64, ["N", 1, 3, 3])])
    indices = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    indices.ir_version = 7  # as make_model: a newer onnx package writes an IR Debian's checker refuses
    assert "node 0 'mp' (MaxPool): its output 1 ('i') is used" in str(error_of(ctx, indices).value)
    reshape = make_model([helper.make_node("Reshape", ["x", "s"], ["y"], name="r")], (12,),
                         {"s": np.array([-1, 3, 2, 2], np.int64)})
    assert "reshapes only to (batch, features)" in str(error_of(ctx, reshape).value)
    symbolic = make_model([helper.make_node("Relu", ["x"], ["y"])], ("H",))
    assert "extent 1 is 'H'" in str(error_of(ctx, symbolic).value)
