"""A float64 NumPy evaluation of the ONNX operators gpgpu reads, with float32 error bounds.

Written from the ONNX operator specification (and PyTorch's pooling rules where ONNX leaves
them open), independently of gpgpu's code: the tests compare gpgpu's float32 outputs with
evaluate(model, x) element by element, for graphs written by onnx.helper and for graphs
gpgpu exports.

Every value is a Val of three float64 arrays:
  v  the exact value of the graph on the (float32) input;
  e  a bound on |float32 result - v| for any float32 evaluation of the same arithmetic in any
     order (gpgpu's kernels, folded or not);
  m  a bound on the magnitudes the float32 arithmetic rounds (sums of absolute terms), so
     that the next operation's rounding can be bounded (a running error analysis).
The bounds, with eps = 2^-24 (float32 unit roundoff):
  - a sum of K products (Conv, Gemm, MatMul): e_in carried through |W|, plus (K + 4) eps m,
    m = the same sum over absolute values: K + 2 for any summation order and the bias
    (Higham's gamma_K), 2 more for weights rounded once when gpgpu folds a scale into them
    (BatchNormalization, Mul by a constant, alpha);
  - arithmetic with a constant (Add, Sub, Mul, Div): 8 eps m; gpgpu folds it into a
    neighbouring layer, or computes it as a BatchNorm layer (1/sqrt(1) within 2 ulp = 4 eps,
    a product and a sum);
  - BatchNormalization: 12 eps (|s| (m + |mean|) + |beta|), s = scale / sqrt(var + eps):
    1/sqrt within 2 ulp, the subtraction, two products, the sum, and the folding's roundings;
  - pooling: a maximum carries the largest input error; an average (n + 3) eps of its sum;
  - exp (Sigmoid, Softmax) within (3 + 2|x|) ulp as GLSL ES 3.2 specifies for highp (ulp =
    2 eps); the derivations are in tests/nn/reference.hpp's header, which these follow;
  - ReLU, Clip, max pooling and the reshapes are 1-Lipschitz and exact; where an input lies
    farther than its bound from a kink, the side is certain: a ReLU of an input below -e is
    exactly 0 in float32 too (no error, no magnitude), a clipped one exactly its bound.
"""

import math

import numpy as np
from onnx import numpy_helper

EPS = 2.0**-24
ULP = 2 * EPS


class Val:
    def __init__(self, v, e=None, m=None):
        self.v = np.asarray(v, dtype=np.float64)
        self.e = np.zeros_like(self.v) if e is None else np.asarray(e, dtype=np.float64)
        self.m = np.abs(self.v) if m is None else np.asarray(m, dtype=np.float64)


def _attrs(node):
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pads(attrs, spatial, kernel, strides):
    """(top, left, bottom, right), auto_pad resolved as ONNX specifies."""
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = []
        for extent, k, s in zip(spatial, kernel, strides):
            out = -(-extent // s)
            total = max(0, (out - 1) * s + k - extent)
            small, large = total // 2, total - total // 2
            pads.append((small, large) if auto == "SAME_UPPER" else (large, small))
        return pads[0][0], pads[1][0], pads[0][1], pads[1][1]
    if auto == "VALID":
        return 0, 0, 0, 0
    p = attrs.get("pads", [0, 0, 0, 0])
    return p[0], p[1], p[2], p[3]


def _windows(extent, k, s, before, after, ceil_mode):
    """Output extent: floor or ceil((extent + pads - k) / s) + 1; with ceil_mode a window that
    would start past the input and its leading padding is dropped (PyTorch)."""
    span = extent + before + after - k
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= extent + before:
        out -= 1
    return out


def conv(x, w, b, attrs):
    n, c, h, wd = x.v.shape
    co, ci, kh, kw = w.v.shape
    assert ci == c and attrs.get("group", 1) == 1
    s = attrs.get("strides", [1, 1])
    t, l, bo, r = _pads(attrs, (h, wd), (kh, kw), s)
    oh = (h + t + bo - kh) // s[0] + 1
    ow = (wd + l + r - kw) // s[1] + 1

    def correlate(a, weights):
        padded = np.zeros((n, c, h + t + bo + kh, wd + l + r + kw))
        padded[:, :, t : t + h, l : l + wd] = a
        out = np.zeros((n, oh, ow, co))
        for ky in range(kh):
            for kx in range(kw):
                patch = padded[:, :, ky : ky + s[0] * oh : s[0], kx : kx + s[1] * ow : s[1]]
                out += np.tensordot(patch, weights[:, :, ky, kx], axes=([1], [1]))
        return out.transpose(0, 3, 1, 2)

    bias = np.zeros(co) if b is None else b.v
    v = correlate(x.v, w.v) + bias[None, :, None, None]
    m = correlate(x.m, np.abs(w.v)) + np.abs(bias)[None, :, None, None]
    e = correlate(x.e, np.abs(w.v)) + (ci * kh * kw + 4) * EPS * m
    return Val(v, e, m)


def pool(x, attrs, kind):
    n, c, h, wd = x.v.shape
    k = attrs["kernel_shape"]
    s = attrs.get("strides", [1, 1])
    t, l, bo, r = _pads(attrs, (h, wd), k, s)
    ceil_mode = attrs.get("ceil_mode", 0) == 1
    oh = _windows(h, k[0], s[0], t, bo, ceil_mode)
    ow = _windows(wd, k[1], s[1], l, r, ceil_mode)
    count_pad = attrs.get("count_include_pad", 0) == 1
    v, e, m = (np.zeros((n, c, oh, ow)) for _ in range(3))
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = oy * s[0] - t, ox * s[1] - l
            ys, ye = max(y0, 0), min(y0 + k[0], h)
            xs, xe = max(x0, 0), min(x0 + k[1], wd)
            win = (slice(None), slice(None), slice(ys, ye), slice(xs, xe))
            if kind == "max":
                v[:, :, oy, ox] = x.v[win].max(axis=(2, 3))
                e[:, :, oy, ox] = x.e[win].max(axis=(2, 3))
                m[:, :, oy, ox] = x.m[win].max(axis=(2, 3))
                continue
            if count_pad:  # positions within the padded input (cut at its end)
                area = (min(y0 + k[0], h + bo) - y0) * (min(x0 + k[1], wd + r) - x0)
            else:
                area = (ye - ys) * (xe - xs)
            count = (ye - ys) * (xe - xs)
            v[:, :, oy, ox] = x.v[win].sum(axis=(2, 3)) / area
            m[:, :, oy, ox] = x.m[win].sum(axis=(2, 3)) / area
            e[:, :, oy, ox] = (x.e[win].sum(axis=(2, 3)) / area
                               + (count + 3) * EPS * m[:, :, oy, ox])
    return Val(v, e, m)


def global_average_pool(x):
    area = x.v.shape[2] * x.v.shape[3]
    v = x.v.mean(axis=(2, 3), keepdims=True)
    m = x.m.mean(axis=(2, 3), keepdims=True)
    e = x.e.mean(axis=(2, 3), keepdims=True) + (area + 3) * EPS * m
    return Val(v, e, m)


def linear(x, w, bias):
    """x (N, F) @ w (F, U) + bias (U,) as a dense layer."""
    v = x.v @ w + bias
    m = x.m @ np.abs(w) + np.abs(bias)
    e = x.e @ np.abs(w) + (w.shape[0] + 4) * EPS * m
    return Val(v, e, m)


def gemm(a, b, c, attrs):
    assert attrs.get("transA", 0) == 0
    w = b.v.T if attrs.get("transB", 0) else b.v
    w = attrs.get("alpha", 1.0) * w
    bias = np.zeros(w.shape[1]) if c is None else attrs.get("beta", 1.0) * np.broadcast_to(
        c.v.reshape(-1) if c.v.size > 1 else c.v.reshape(()), (w.shape[1],))
    return linear(a, w, bias)


def batch_normalization(x, scale, bias, mean, var, attrs):
    shape = (1, -1) + (1,) * (x.v.ndim - 2)
    s = (scale.v / np.sqrt(var.v + attrs.get("epsilon", 1e-5))).reshape(shape)
    mu, beta = mean.v.reshape(shape), bias.v.reshape(shape)
    v = (x.v - mu) * s + beta
    m = np.abs(s) * (x.m + np.abs(mu)) + np.abs(beta)
    e = np.abs(s) * x.e + 12 * EPS * m
    return Val(v, e, m)


def sigmoid(x):
    y = 1 / (1 + np.exp(-x.v))
    e = 0.25 * x.e + y * ((3 + 2 * np.abs(x.v)) * ULP + 2 * ULP)
    return Val(y, e, np.abs(y) + e)


def tanh(x):
    y = np.tanh(x.v)
    e = x.e + 2 * np.exp(-2 * np.abs(x.v)) * (3 + 4 * np.abs(x.v)) * ULP + 4 * EPS
    return Val(y, e, np.abs(y) + e)


def relu(x):
    zero = x.v < -x.e  # certainly negative: exactly 0 in any float32 evaluation
    return Val(np.maximum(x.v, 0), np.where(zero, 0.0, x.e), np.where(zero, 0.0, x.m))


def leaky_relu(x, alpha):
    y = np.where(x.v > 0, x.v, alpha * x.v)
    e = max(1.0, alpha) * x.e + EPS * np.abs(y)
    return Val(y, e, x.m * max(1.0, alpha))


def clip(x, lo, hi):
    outside = (x.v < lo - x.e) | (x.v > hi + x.e)  # certainly clipped: exactly the bound
    return Val(np.clip(x.v, lo, hi), np.where(outside, 0.0, x.e),
               np.minimum(x.m, max(abs(lo), abs(hi))))


def softmax(x, axis):
    z = x.v - x.v.max(axis=axis, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=axis, keepdims=True)
    features = x.v.shape[axis]
    spread = -z.min(axis=axis, keepdims=True)
    max_e = x.e.max(axis=axis, keepdims=True)
    e = p * (2 * max_e + 2 * (3 + 2 * spread) * ULP + (features + 3) * EPS)
    return Val(p, e, p + e)


def arithmetic(op, a, b):
    """Add, Sub, Mul, Div where at most one operand carries an error (the other a constant)."""
    if op in ("Add", "Sub"):
        v = a.v + b.v if op == "Add" else a.v - b.v
        m = a.m + b.m
        e = a.e + b.e + 8 * EPS * m
    elif op == "Mul":
        v, m = a.v * b.v, a.m * b.m
        e = a.e * b.m + b.e * a.m + 8 * EPS * m
    else:
        v, m = a.v / b.v, a.m / np.abs(b.v)
        e = a.e / np.abs(b.v) + 8 * EPS * m
    return Val(v, e, m)


def _same(x, f):
    return Val(f(x.v), f(x.e), f(x.m))


def evaluate(model, x):
    """The graph's output for input x (float32 array), as a Val."""
    g = model.graph
    values = {t.name: Val(numpy_helper.to_array(t).astype(np.float64)) for t in g.initializer}
    inputs = [i.name for i in g.input if i.name not in values]
    values[inputs[0]] = Val(np.asarray(x, dtype=np.float64))
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    for node in g.node:
        ins = [values[name] if name else None for name in node.input]
        a = _attrs(node)
        out = _run(node.op_type, ins, a, opset)
        values[node.output[0]] = out
    return values[g.output[0].name]


def _ints(val):
    return [int(v) for v in np.asarray(val.v).reshape(-1)]


def _run(op, ins, a, opset):
    x = ins[0] if ins else None
    if op == "Constant":
        return Val(numpy_helper.to_array(a["value"]).astype(np.float64))
    if op == "Conv":
        return conv(x, ins[1], ins[2] if len(ins) > 2 else None, a)
    if op == "MaxPool":
        return pool(x, a, "max")
    if op == "AveragePool":
        return pool(x, a, "average")
    if op == "GlobalAveragePool":
        return global_average_pool(x)
    if op == "Gemm":
        return gemm(x, ins[1], ins[2] if len(ins) > 2 else None, a)
    if op == "MatMul":
        return linear(x, ins[1].v, np.zeros(ins[1].v.shape[1]))
    if op == "BatchNormalization":
        return batch_normalization(*ins[:5], a)
    if op == "Relu":
        return relu(x)
    if op == "LeakyRelu":
        return leaky_relu(x, a.get("alpha", 0.01))
    if op == "Sigmoid":
        return sigmoid(x)
    if op == "Tanh":
        return tanh(x)
    if op == "Clip":
        if opset < 11:
            lo, hi = a.get("min", -math.inf), a.get("max", math.inf)
        else:
            lo = float(ins[1].v) if len(ins) > 1 and ins[1] is not None else -math.inf
            hi = float(ins[2].v) if len(ins) > 2 and ins[2] is not None else math.inf
        return clip(x, lo, hi)
    if op == "Softmax":
        return softmax(x, a.get("axis", 1 if opset < 13 else -1))
    if op in ("Dropout", "Identity"):
        return x
    if op in ("Add", "Sub", "Mul", "Div"):
        return arithmetic(op, x, ins[1])
    if op == "Flatten":
        return _same(x, lambda t: t.reshape(t.shape[0], -1))
    if op == "Reshape":
        target = _ints(ins[1])
        target = [x.v.shape[i] if d == 0 else d for i, d in enumerate(target)]
        return _same(x, lambda t: t.reshape(target))
    if op == "Squeeze":
        axes = tuple(a["axes"]) if opset < 13 else tuple(_ints(ins[1]))
        return _same(x, lambda t: np.squeeze(t, axis=axes))
    if op == "Unsqueeze":
        axes = a["axes"] if opset < 13 else _ints(ins[1])
        return _same(x, lambda t: np.expand_dims(t, tuple(axes)))
    if op == "Transpose":
        perm = a.get("perm", list(reversed(range(x.v.ndim))))
        return _same(x, lambda t: np.transpose(t, perm))
    if op == "Shape":
        return Val(np.array(x.v.shape, dtype=np.float64))
    if op == "Gather":
        return Val(np.take(x.v, np.asarray(ins[1].v, dtype=np.int64), axis=a.get("axis", 0)))
    if op == "Concat":
        return Val(np.concatenate([i.v for i in ins], axis=a["axis"]))
    if op == "Cast":
        return Val(x.v.copy())
    if op == "Neg":
        return Val(-x.v)
    raise NotImplementedError(op)
