"""gpgpu.reduce / argmin / argmax against NumPy on fresh random data."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, random_floats, random_ints, random_uints


@pytest.mark.parametrize("n", [1, 1000, 1 << 18])
def test_float_sum_within_the_tree_bound(ctx, rng, n):
    x = random_floats(rng, n)
    s = gpgpu.reduce(x, ctx=ctx)
    assert isinstance(s, np.float32)
    exact = np.sum(x.astype(np.float64))
    # The library's stated bound: a tree of depth d adds n terms with d roundings each.
    d = gpgpu.reduce_error_depth(n, ctx=ctx)
    assert abs(float(s) - exact) <= d * EPS32 * np.sum(np.abs(x.astype(np.float64)))


def test_builtin_operators_on_integers(ctx, rng):
    a = random_ints(rng, 5000, -50000, 50000)
    # int32 sums wrap modulo 2^32 (as in GLSL): compare modulo 2^32.
    wrapped = (int(np.sum(a, dtype=np.int64)) + 2**31) % 2**32 - 2**31
    assert int(gpgpu.reduce(a, ctx=ctx)) == wrapped
    assert gpgpu.reduce(a, "min", ctx=ctx) == a.min()
    assert gpgpu.reduce(a, "max", ctx=ctx) == a.max()
    u = random_uints(rng, 300, 1, 9)
    product = 1
    for v in u:
        product = product * int(v) % 2**32
    assert int(gpgpu.reduce(u, "product", ctx=ctx)) == product


def test_vector_components_and_glsl_operator(ctx, rng):
    v = random_floats(rng, (777, 4))
    s = gpgpu.reduce(v, components=4, ctx=ctx)
    assert s.shape == (4,) and s.dtype == np.float32
    d = gpgpu.reduce_error_depth(777, components=4, ctx=ctx)
    exact = v.astype(np.float64).sum(axis=0)
    assert np.all(np.abs(s - exact) <= d * EPS32 * np.abs(v.astype(np.float64)).sum(axis=0))
    m = gpgpu.reduce(v.ravel(), gpgpu.GlslOp("max(abs(a), abs(b))", "0.0"), ctx=ctx)
    assert m == np.max(np.abs(v))  # max is exact
    m2 = gpgpu.reduce(v.ravel(), ("min(a, b)", "3.0e38"), ctx=ctx)
    assert m2 == v.min()


def test_buffers_ranges_and_device_outputs(ctx, rng):
    x = random_uints(rng, 1000, 1, 1000)
    xb = gpgpu.Buffer.from_numpy(ctx, x)
    assert gpgpu.reduce(xb, range=(100, 50)) == x[100:150].sum()  # exact: small integers
    totals = gpgpu.Buffer.from_numpy(ctx, np.full(4, 7, np.uint32))
    assert gpgpu.reduce(xb, "max", out=totals, out_offset=2) is totals
    np.testing.assert_array_equal(totals.to_numpy(), [7, 7, x.max(), 7])
    idx = gpgpu.Buffer(ctx, 2, np.uint32)
    gpgpu.argmin(xb, out=idx, out_offset=1)
    assert idx.to_numpy()[1] == np.argmin(x)


def test_argmin_argmax_first_extreme_and_nan(ctx, rng):
    x = random_floats(rng, 4097)
    x[[10, 3000]] = 5.0  # a tie: the first one counts
    x[[20, 2000]] = -5.0
    x[7] = np.nan
    assert gpgpu.argmax(x, ctx=ctx) == (10, np.float32(5.0))
    assert gpgpu.argmin(x, ctx=ctx) == (20, np.float32(-5.0))
    i, v = gpgpu.argmax(random_ints(rng, 10), range=(3, 0), ctx=ctx)
    assert i == gpgpu.no_index


def test_errors(ctx, rng):
    x = random_floats(rng, 100)
    with pytest.raises(gpgpu.ArgumentError, match="op must be"):
        gpgpu.reduce(x, "mean", ctx=ctx)
    with pytest.raises(gpgpu.TypeMismatchError, match="float64"):
        gpgpu.reduce(x.astype(np.float64), ctx=ctx)
    assert abs(gpgpu.reduce(x.astype(np.float64), ctx=ctx, copy=True) - x.sum(dtype=np.float64)) < 1e-3
    with pytest.raises(gpgpu.SizeMismatchError):
        gpgpu.reduce(gpgpu.Buffer.from_numpy(ctx, x), range=(90, 20))
    with pytest.raises(gpgpu.Error):
        gpgpu.reduce(x, components=5, ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="out="):
        gpgpu.reduce(x, out=np.zeros(1, np.float32), ctx=ctx)
    with pytest.raises(gpgpu.CompileError):
        gpgpu.reduce(x, gpgpu.GlslOp("a +* b", "0.0"), ctx=ctx)
    other = gpgpu.Context()
    with pytest.raises(gpgpu.ArgumentError, match="another Context"):
        gpgpu.reduce(gpgpu.Buffer.from_numpy(other, x), ctx=ctx)
