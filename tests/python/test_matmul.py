"""gpgpu.matmul and gpgpu.MatmulPlan against float64 products of random matrices."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, poisoned, random_floats


def check_product(c, a, b):
    # docs/matmul.md: |c - exact| <= (k + 2) * 2^-24 * sum_i |a_ri| |b_ic| for every method.
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (a.shape[1] + 2) * EPS32 * (np.abs(a64) @ np.abs(b64))
    assert c.shape == (a.shape[0], b.shape[1]) and c.dtype == np.float32
    assert np.all(np.abs(c - a64 @ b64) <= bound)


@pytest.mark.parametrize("method", ["auto"] + gpgpu.matmul_methods())
def test_every_method(ctx, rng, method):
    a, b = random_floats(rng, (37, 21)), random_floats(rng, (21, 45))
    try:
        c = gpgpu.matmul(a, b, method=method, ctx=ctx)
    except gpgpu.DeviceLimitError as e:
        # A device (or a device-limit profile) too small for the method: the refusal names
        # the limit and both figures, and the figures say why.
        assert e.limit.startswith("GL_MAX_") and e.needed > e.allowed, str(e)
        return
    except gpgpu.UnsupportedError as e:
        pytest.skip(f"{method} needs a feature this device lacks: {e}")
    check_product(c, a, b)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (1, 300, 1), (130, 7, 66)])
def test_shapes_and_out(ctx, rng, m, k, n):
    a, b = random_floats(rng, (m, k)), random_floats(rng, (k, n))
    out = poisoned((m, n), np.float32)
    result = gpgpu.matmul(a, b, out=out, ctx=ctx)
    assert result is out
    check_product(out, a, b)


def test_default_context_and_copy(rng):
    a = random_floats(rng, (8, 8)).astype(np.float64)
    b = random_floats(rng, (8, 8))
    with pytest.raises(gpgpu.TypeMismatchError, match="float64"):
        gpgpu.matmul(a, b)
    c = gpgpu.matmul(a, b, copy=True)
    check_product(c, a.astype(np.float32), b)


def test_buffers_and_plan(ctx, rng):
    a, b = random_floats(rng, (64, 32)), random_floats(rng, (32, 48))
    ab, bb = gpgpu.Buffer.from_numpy(ctx, a), gpgpu.Buffer.from_numpy(ctx, b)
    cb = gpgpu.matmul(ab, bb, ctx=ctx)
    assert isinstance(cb, gpgpu.Buffer) and cb.shape == (64, 48)
    check_product(cb.to_numpy(), a, b)
    plan = gpgpu.MatmulPlan(ctx, 64, 32, 48, method="compute_tiled")
    assert plan.method == "compute_tiled" and (plan.m, plan.k, plan.n) == (64, 32, 48)
    check_product(plan.run(a, b), a, b)
    out = gpgpu.Buffer(ctx, (64, 48))
    plan.run(ab, bb, out)
    check_product(out.to_numpy(), a, b)


def test_errors(ctx, rng):
    a, b = random_floats(rng, (4, 5)), random_floats(rng, (6, 3))
    with pytest.raises(gpgpu.SizeMismatchError, match="columns"):
        gpgpu.matmul(a, b, ctx=ctx)
    with pytest.raises(gpgpu.SizeMismatchError, match="2-D"):
        gpgpu.matmul(a.ravel(), b, ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="unknown method 'fast'.*compute_naive"):
        gpgpu.matmul(a, a.T.copy(), method="fast", ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="C-contiguous"):
        gpgpu.matmul(a, a.T, ctx=ctx)
    with pytest.raises(gpgpu.SizeMismatchError, match="out must have shape"):
        gpgpu.matmul(a, a.T.copy(), out=np.empty((4, 5), np.float32), ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError, match="two NumPy arrays or two Buffers"):
        gpgpu.matmul(gpgpu.Buffer.from_numpy(ctx, a), b, ctx=ctx)
