"""gpgpu.js.GPGPU: the gpgpu.js API (the seeds' samples) over transform-feedback kernels."""

import numpy as np
import pytest

import gpgpu
import gpgpu.js
from conftest import EPS32, poisoned, random_floats, random_ints

ADD_MUL = """
in float A;
in float B;
out float C;
out float D;
void main() { C = A + B; D = A * B; }
"""


def test_add_mul_vec_like_the_seed(ctx):
    g = gpgpu.js.GPGPU(ctx)
    a = np.array([10, 20, 30, 40, 50, 60], np.float32)
    b = np.array([1, 2, 3, 4, 5, 6], np.float32)
    c, d = poisoned(6, np.float32), poisoned(6, np.float32)
    g.compute(id="AddMulVec", vertex_shader=ADD_MUL, args={"A": a, "B": b, "C": c, "D": d})
    np.testing.assert_array_equal(c, a + b)  # small integers: exact
    np.testing.assert_array_equal(d, a * b)


def test_random_data_and_the_javascript_parameter_object(ctx, rng):
    g = gpgpu.js.CreateGPGPU(ctx)
    a, b = random_floats(rng, 999), random_floats(rng, 999)
    c, d = g.compute({"id": "AddMulVec", "vertexShader": ADD_MUL, "args": {"A": a, "B": b}},
                     out=["C", "D"])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert np.all(np.abs(c - (a64 + b64)) <= EPS32 * np.abs(a64 + b64))
    assert np.all(np.abs(d - a64 * b64) <= EPS32 * np.abs(a64 * b64))
    assert g.kernel_count == 1


def test_uniform_matrix_is_column_major_as_in_glsl(ctx):
    # The seed's UniMulMat: B = 1..9 as a mat3 has first COLUMN (1, 2, 3).
    g = gpgpu.js.GPGPU(ctx)
    shader = "in vec3 A; uniform mat3 B; out vec3 C; void main() { C = B * A; }"
    a = np.array([[1, 2, 3]], np.float32)
    b = np.arange(1, 10, dtype=np.float32)
    c = g.compute(id="UniMulMat", vertex_shader=shader, args={"A": a, "B": b}, out="C")
    np.testing.assert_array_equal(c, [[30, 36, 42]])
    c_row = g.compute(id="UniMulMat", vertex_shader=shader,
                      args={"A": a, "B": gpgpu.row_major(b.reshape(3, 3))}, out="C")
    np.testing.assert_array_equal(c_row, [[14, 32, 50]])


def test_make_texture_info(ctx, rng):
    g = gpgpu.js.GPGPU(ctx)
    m = random_ints(rng, (2, 8))
    tex = g.make_texture_info("int", (2, 8), m.ravel())
    assert tex.shape == (2, 8)
    out = g.compute(id="ReadTex", vertex_shader="""
        uniform isampler2D T;
        flat out int V;
        void main() { int i = gpgpu_index(); V = texelFetch(T, ivec2(i % 8, i / 8), 0).r; }""",
                    args={"T": tex, "V": poisoned(16, np.int32)}, out="V")
    np.testing.assert_array_equal(out, m.ravel())
    with pytest.raises(gpgpu.TypeMismatchError):
        g.make_texture_info("float", (2, 8), m)


def test_ids_clear_and_errors(ctx, rng):
    g = gpgpu.js.GPGPU(ctx)
    a = random_floats(rng, 10)
    scale = "in float A; uniform float s; out float C; void main() { C = A * s; }"
    c = g.compute(id="Scale", vertex_shader=scale, args={"A": a, "s": 4.0}, out="C")
    np.testing.assert_array_equal(c, a * 4)  # exact
    with pytest.raises(gpgpu.ArgumentError, match="different vertex shader"):
        g.compute(id="Scale", vertex_shader="in float A; out float C; void main() { C = -A; }",
                  args={"A": a}, out="C")
    assert g.clear("Scale") and not g.clear("Scale")
    c = g.compute(id="Scale", vertex_shader="in float A; out float C; void main() { C = -A; }",
                  args={"A": a}, out="C")
    np.testing.assert_array_equal(c, -a)
    with pytest.raises(gpgpu.ArgumentError, match="id"):
        g.compute(vertex_shader=scale, args={})
    with pytest.raises(gpgpu.CompileError):
        g.compute(id="Broken", vertex_shader="out float C; void main() { C = nope; }", args={})
