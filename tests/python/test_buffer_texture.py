"""gpgpu.Buffer and gpgpu.Texture: round trips, device-resident chains, errors."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, random_floats, random_ints, random_uints

SCALE = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer B { float b[]; };
uniform float s;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = a[i] * s + 1.0; }
"""


@pytest.mark.parametrize("make", [random_floats, random_ints, random_uints])
def test_buffer_round_trip_keeps_shape_and_dtype(ctx, rng, make):
    a = make(rng, (3, 5, 7))
    b = gpgpu.Buffer.from_numpy(ctx, a)
    assert b.shape == (3, 5, 7) and b.dtype == a.dtype and b.size == 105 and b.nbytes == 420
    np.testing.assert_array_equal(b.to_numpy(), a)
    part = make(rng, 10)
    b.upload(part, offset=20)
    out = np.empty(30, a.dtype)
    b.download(out)
    expected = a.ravel()[:30].copy()
    expected[20:30] = part
    np.testing.assert_array_equal(out, expected)


def test_kernels_chain_through_buffers(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, SCALE)
    a = random_floats(rng, 4096)
    ba = gpgpu.Buffer.from_numpy(ctx, a)
    bb = gpgpu.Buffer(ctx, 4096, np.float32)
    bc = gpgpu.Buffer(ctx, (64, 64), "float32")
    k.run(a=ba, b=bb, s=2.0)
    k.run(a=bb, b=bc, s=0.5)
    c = bc.to_numpy()
    assert c.shape == (64, 64)
    once = a.astype(np.float64) * 2 + 1  # an exact doubling, then one rounded addition
    twice = once * 0.5 + 1
    bound = EPS32 * (np.abs(once) * 0.5 + np.abs(twice)) + EPS32 * np.abs(once)
    assert np.all(np.abs(c.ravel() - twice) <= bound)


def test_buffer_errors(ctx, rng):
    with pytest.raises(gpgpu.TypeMismatchError, match="float64"):
        gpgpu.Buffer(ctx, 10, np.float64)
    with pytest.raises(gpgpu.TypeMismatchError):
        gpgpu.Buffer.from_numpy(ctx, np.ones(4))
    b = gpgpu.Buffer.from_numpy(ctx, np.ones(4), dtype=np.float32, copy=True)
    np.testing.assert_array_equal(b.to_numpy(), np.ones(4, np.float32))
    with pytest.raises(gpgpu.TypeMismatchError):
        b.upload(np.ones(4, np.int32))
    with pytest.raises(gpgpu.SizeMismatchError, match="shape"):
        b.shape = (3, 2)
    b.shape = (2, 2)
    assert b.to_numpy().shape == (2, 2)
    with pytest.raises(gpgpu.Error):
        b.upload(np.ones(5, np.float32))  # past the end
    frozen = np.empty(4, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(gpgpu.ArgumentError, match="read-only"):
        b.download(frozen)
    b.release()
    assert not b.valid
    with pytest.raises(gpgpu.Error):
        b.to_numpy()
    k = gpgpu.ComputeKernel(ctx, SCALE)
    with pytest.raises(gpgpu.ArgumentError, match="out= returns host arrays"):
        k.run(a=gpgpu.Buffer(ctx, 4), b=gpgpu.Buffer(ctx, 4), s=1.0, out="b")


@pytest.mark.parametrize("type_name,dtype,components", [
    ("float", np.float32, 1), ("vec2", np.float32, 2), ("vec3", np.float32, 3),
    ("vec4", np.float32, 4), ("int", np.int32, 1), ("uint", np.uint32, 1),
    ("ivec4", np.int32, 4), ("uvec4", np.uint32, 4)])
def test_texture_round_trip_every_type(ctx, rng, type_name, dtype, components):
    shape = (5, 7) if components == 1 else (5, 7, components)
    if dtype == np.float32:
        a = random_floats(rng, shape)
    elif dtype == np.int32:
        a = random_ints(rng, shape)
    else:
        a = random_uints(rng, shape)
    t = gpgpu.Texture.from_numpy(ctx, type_name, a)
    assert t.shape == (5, 7) and t.type == type_name and t.components == components
    np.testing.assert_array_equal(t.to_numpy(), a)
    t3 = gpgpu.Texture.from_numpy(ctx, type_name, a.ravel(), shape=(5, 7, 1))
    assert t3.shape == (5, 7, 1)
    np.testing.assert_array_equal(t3.to_numpy().ravel(), a.ravel())


def test_texture_array_and_errors(ctx, rng):
    x = random_floats(rng, 1000)
    t = gpgpu.Texture.from_array(ctx, "float", x, max_width=100)
    assert t.is_array and t.length == 1000 and t.shape == (10, 100)
    np.testing.assert_array_equal(t.to_numpy(), x)
    with pytest.raises(gpgpu.SizeMismatchError, match="last axis"):
        gpgpu.Texture.from_numpy(ctx, "vec4", random_floats(rng, (4, 3)))
    with pytest.raises(gpgpu.ArgumentError):
        gpgpu.Texture(ctx, "double", (2, 2))
    with pytest.raises(gpgpu.TypeMismatchError):
        gpgpu.Texture.from_numpy(ctx, "uint", random_floats(rng, (2, 2)))
    with pytest.raises(gpgpu.LimitError):
        gpgpu.Texture(ctx, "float", (1, ctx.info()["max_texture_size"] + 1))
