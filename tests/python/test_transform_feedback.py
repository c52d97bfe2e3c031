"""gpgpu.TransformFeedbackKernel: per-element vertex shaders with captured outputs."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, poisoned, random_floats, random_ints

ADD_MUL = """
in float A;
in float B;
out float C;
out float D;
void main() { C = A + B; D = A * B; }
"""


@pytest.fixture(scope="module")
def add_mul(ctx):
    return gpgpu.TransformFeedbackKernel(ctx, ADD_MUL, label="AddMulVec")


@pytest.mark.parametrize("n", [1, 6, 1001])
def test_outputs_written_in_place(add_mul, rng, n):
    a, b = random_floats(rng, n), random_floats(rng, n)
    c, d = poisoned(n, np.float32), poisoned(n, np.float32)
    add_mul.run(A=a, B=b, C=c, D=d)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    # One rounding each: |error| <= EPS32 * |exact|.
    assert np.all(np.abs(c - (a64 + b64)) <= EPS32 * np.abs(a64 + b64))
    assert np.all(np.abs(d - a64 * b64) <= EPS32 * np.abs(a64 * b64))


def test_outputs_returned(add_mul, rng):
    a, b = random_floats(rng, 300), random_floats(rng, 300)
    c, d = add_mul.run(A=a, B=b, out=["C", "D"])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert c.shape == d.shape == (300,) and c.dtype == np.float32
    assert np.all(np.abs(c - (a64 + b64)) <= EPS32 * np.abs(a64 + b64))
    assert np.all(np.abs(d - a64 * b64) <= EPS32 * np.abs(a64 * b64))
    only_d = add_mul.run(A=a, B=b, C=poisoned(300, np.float32), out="D")
    np.testing.assert_array_equal(only_d, d)


def test_integer_outputs_and_vectors(ctx, rng):
    k = gpgpu.TransformFeedbackKernel(ctx, """
        in ivec2 p;
        in vec3 v;
        uniform int k;
        flat out int s;
        out vec3 w;
        void main() { s = p.x * k - p.y + gpgpu_index(); w = v * 2.0; }""")
    p, v = random_ints(rng, (257, 2)), random_floats(rng, (257, 3))
    s, w = k.run(p=p, v=v, k=3, out=["s", "w"])
    assert s.dtype == np.int32 and w.shape == (257, 3)
    np.testing.assert_array_equal(s, p[:, 0].astype(np.int64) * 3 - p[:, 1] + np.arange(257))
    np.testing.assert_array_equal(w, v * 2)  # doubling is exact


def test_buffer_inputs_and_outputs_stay_on_the_gpu(ctx, add_mul, rng):
    a, b = random_floats(rng, 500), random_floats(rng, 500)
    ab, bb = gpgpu.Buffer.from_numpy(ctx, a), gpgpu.Buffer.from_numpy(ctx, b)
    cb, db = gpgpu.Buffer(ctx, 500), gpgpu.Buffer(ctx, 500)
    add_mul.run(A=ab, B=bb, C=cb, D=db)
    c, d = cb.to_numpy(), db.to_numpy()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert np.all(np.abs(c - (a64 + b64)) <= EPS32 * np.abs(a64 + b64))
    assert np.all(np.abs(d - a64 * b64) <= EPS32 * np.abs(a64 * b64))


def test_bad_inputs(add_mul, rng):
    a, b = random_floats(rng, 10), random_floats(rng, 11)
    c, d = poisoned(10, np.float32), poisoned(10, np.float32)
    with pytest.raises(gpgpu.SizeMismatchError):
        add_mul.run(A=a, B=b, C=c, D=d)
    assert np.all(np.isnan(c)) and np.all(np.isnan(d))
    frozen = poisoned(10, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(gpgpu.ArgumentError, match="'C'.*read-only"):
        add_mul.run(A=a, B=a, C=frozen, D=d)
    with pytest.raises(gpgpu.ArgumentError, match="'D'.*output.*In"):
        add_mul.run(A=a, B=a, C=c, D=gpgpu.In(d))
    with pytest.raises(gpgpu.TypeMismatchError, match="'A'.*float32.*int32"):
        add_mul.run(A=a.astype(np.int32), B=a, C=c, D=d)
    with pytest.raises(gpgpu.MissingArgumentError, match="B"):
        add_mul.run(A=a, C=c, D=d)


def test_compile_error(ctx):
    with pytest.raises(gpgpu.CompileError, match="(?s)>>.*C = A +"):
        gpgpu.TransformFeedbackKernel(ctx, "in float A;\nout float C;\nvoid main() { C = A + ; }")
