"""gpgpu.FragmentKernel: one fragment per output element, textures in, arrays/textures out."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, poisoned, random_floats, random_uints

MULTIPLY = """
uniform sampler2D A;
uniform sampler2D B;
out float C;
void main() {
  ivec2 ij = gpgpu_coord();
  float sum = 0.0;
  for (int t = 0; t < textureSize(A, 0).x; ++t)
    sum += texelFetch(A, ivec2(t, ij.y), 0).r * texelFetch(B, ivec2(ij.x, t), 0).r;
  C = sum;
}
"""


def matmul_bound(a, b):
    # A k-term float32 dot product: |error| <= (k + 1) * EPS32 * sum |a_it b_tj| (sequential sum).
    k = a.shape[1]
    return (k + 1) * EPS32 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 13, 5), (32, 17, 40)])
def test_multiply_into_2d_array(ctx, rng, m, k, n):
    kernel = gpgpu.FragmentKernel(ctx, MULTIPLY)
    a, b = random_floats(rng, (m, k)), random_floats(rng, (k, n))
    ta, tb = gpgpu.Texture.from_numpy(ctx, "float", a), gpgpu.Texture.from_numpy(ctx, "float", b)
    c = poisoned((m, n), np.float32)
    kernel.run(A=ta, B=tb, C=c)  # the grid is c's shape
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(c - expected) <= matmul_bound(a, b))
    c2 = kernel.run(A=ta, B=tb, out="C", shape=(m, n))
    assert c2.shape == (m, n)
    np.testing.assert_array_equal(c2, c)


def test_one_dimensional_grid_wraps_rows(ctx, rng):
    kernel = gpgpu.FragmentKernel(ctx, """
        uniform usampler2D X;
        out uint Y;
        void main() { int i = gpgpu_index(); Y = gpgpu_fetch(X, i).r * 3u + uint(i); }""")
    kernel.max_width = 64  # 1000 elements wrap into 16 rows of 64
    x = random_uints(rng, 1000)
    tx = gpgpu.Texture.from_array(ctx, "uint", x, max_width=64)
    y = poisoned(1000, np.uint32)
    kernel.run(X=tx, Y=y)
    np.testing.assert_array_equal(y, x * 3 + np.arange(1000, dtype=np.uint32))


def test_vec4_output_and_texture_ping_pong(ctx, rng):
    step = gpgpu.FragmentKernel(ctx, """
        uniform sampler2D S;
        out vec4 R;
        void main() { R = texelFetch(S, gpgpu_coord(), 0) * 2.0 + vec4(1.0, 0.0, -1.0, 0.5); }""")
    s = random_floats(rng, (6, 9, 4))
    t0 = gpgpu.Texture.from_numpy(ctx, "vec4", s)
    t1 = gpgpu.Texture(ctx, "vec4", (6, 9))
    step.run(S=t0, R=t1)          # rendered on the GPU
    r = step.run(S=t1, out="R", shape=(6, 9))  # the second pass reads the first's output
    assert r.shape == (6, 9, 4)
    shift = np.array([1.0, 0.0, -1.0, 0.5])
    once = s.astype(np.float64) * 2 + shift
    twice = once * 2 + shift
    # Each pass: an exact doubling, then one rounded addition.
    bound = EPS32 * (np.abs(once) * 2 + np.abs(twice)) * 2
    assert np.all(np.abs(r - twice) <= bound)


def test_grid_errors(ctx, rng):
    kernel = gpgpu.FragmentKernel(ctx, MULTIPLY)
    a = random_floats(rng, (4, 4))
    ta = gpgpu.Texture.from_numpy(ctx, "float", a)
    with pytest.raises(gpgpu.ArgumentError, match="cannot tell"):
        kernel.run(A=ta, B=ta, out="C")
    with pytest.raises(gpgpu.ArgumentError, match="shape="):
        kernel.run(A=ta, B=ta, out="C", shape=(1, 2, 3))
    with pytest.raises(gpgpu.TypeMismatchError):
        kernel.run(A=a, B=ta, C=poisoned((4, 4), np.float32))
