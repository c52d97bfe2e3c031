"""gpgpu.ComputeKernel against float64 NumPy references on fresh random data."""

import threading
import time

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, poisoned, random_floats, random_ints, random_uints

SAXPY = """
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
uniform float alpha;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; }
"""

ADD_INT = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer C { int c[]; };
uniform int offset;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) c[i] = a[i] * b[i] + offset; }
"""

XOR_UINT = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer U { uint u[]; };
uniform uint mask;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) u[i] = (u[i] ^ mask) + i; }
"""


def saxpy_bound(alpha, x, y):
    # One product and one sum in float32 (or one fused multiply-add): each rounds once, so the
    # error is at most 2 * EPS32 * (|y| + |alpha * x|).
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return y64 + alpha * x64, 2 * EPS32 * (np.abs(y64) + np.abs(alpha * x64))


@pytest.fixture(scope="module")
def saxpy(ctx):
    return gpgpu.ComputeKernel(ctx, SAXPY, label="saxpy")


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 65537])
def test_saxpy_in_place(saxpy, rng, n):
    x, y = random_floats(rng, n), random_floats(rng, n)
    alpha = float(rng.uniform(0.5, 2.0))
    expected, bound = saxpy_bound(np.float32(alpha), x, y)
    x_before = x.copy()
    result = saxpy.run(x=x, y=y, alpha=alpha)
    assert result is None
    assert np.all(np.abs(y - expected) <= bound)
    np.testing.assert_array_equal(x, x_before)


def test_saxpy_out_returns_new_array_and_leaves_caller_alone(saxpy, rng):
    x, y = random_floats(rng, 3000), random_floats(rng, 3000)
    y_before = y.copy()
    y2 = saxpy.run(x=x, y=y, alpha=1.5, out="y")
    expected, bound = saxpy_bound(np.float32(1.5), x, y)
    np.testing.assert_array_equal(y, y_before)
    assert y2.dtype == np.float32 and y2.shape == y.shape
    assert np.all(np.abs(y2 - expected) <= bound)


def test_shapes_are_kept_for_multidimensional_arrays(saxpy, rng):
    x, y = random_floats(rng, (30, 40)), random_floats(rng, (30, 40))
    expected, bound = saxpy_bound(np.float32(-0.75), x, y)
    y2 = saxpy.run(x=x, y=y, alpha=-0.75, out=["y"])
    assert isinstance(y2, tuple) and y2[0].shape == (30, 40)
    assert np.all(np.abs(y2[0] - expected) <= bound)


def test_int32_kernel_allocates_output(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, ADD_INT)
    a, b = random_ints(rng, 5000), random_ints(rng, 5000)
    c = k.run(a=a, b=b, offset=-7, out="c")
    assert c.dtype == np.int32 and c.shape == (5000,)
    np.testing.assert_array_equal(c, a.astype(np.int64) * b + -7)


def test_int32_output_written_into_poisoned_array(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, ADD_INT)
    a, b = random_ints(rng, 777), random_ints(rng, 777)
    c = poisoned(777, np.int32)
    k.run(a=a, b=b, c=gpgpu.Out(c), offset=3)
    np.testing.assert_array_equal(c, a.astype(np.int64) * b + 3)


def test_uint32_in_place_exact(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, XOR_UINT)
    u = random_uints(rng, 4099, 1, 2**32 - 5000)
    mask = int(rng.integers(1, 2**32))
    expected = ((u.astype(np.uint64) ^ mask) + np.arange(4099, dtype=np.uint64)) % 2**32
    k.run(u=u, mask=mask)
    np.testing.assert_array_equal(u, expected.astype(np.uint32))


def test_block_name_and_member_name_both_bind(saxpy, rng):
    x, y = random_floats(rng, 100), random_floats(rng, 100)
    expected, bound = saxpy_bound(np.float32(2.0), x, y)
    saxpy.run(X=x, Y=y, alpha=2.0)
    assert np.all(np.abs(y - expected) <= bound)


def test_readonly_numpy_array_is_input_only(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, XOR_UINT)
    u = random_uints(rng, 64)
    u.flags.writeable = False
    before = u.copy()
    k.run(u=u, mask=5)  # the kernel writes u on the GPU, but a read-only array is an input
    np.testing.assert_array_equal(u, before)


def test_In_is_never_written_back_and_InOut_is(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, XOR_UINT)
    u = random_uints(rng, 64)
    before = u.copy()
    k.run(u=gpgpu.In(u), mask=5)
    np.testing.assert_array_equal(u, before)
    k.run(u=gpgpu.InOut(u), mask=5)
    np.testing.assert_array_equal(u, ((before ^ 5) + np.arange(64, dtype=np.uint32)))


def test_readonly_blocks_found_in_source(ctx):
    k = gpgpu.ComputeKernel(ctx, SAXPY)
    assert k.readonly_blocks == ["X", "x"]
    k2 = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 64) in;
        // readonly buffer Fake { float f[]; };  (a comment)
        layout(std430, binding = 0) buffer A { readonly float a[]; };
        layout(std430, binding = 1) restrict writeonly buffer B { float b[]; };
        /* readonly */ layout(std430, binding = 2) buffer C { float c[]; };
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) b[i] = a[i] + c[i]; }""")
    assert k2.readonly_blocks == ["A", "a"]


def test_vec4_arrays_and_matrix_uniform_row_major(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 32) in;
        layout(std430, binding = 0) readonly buffer P { vec4 p[]; };
        layout(std430, binding = 1) writeonly buffer Q { vec4 q[]; };
        uniform mat4 m;
        uniform vec4 shift;
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) q[i] = m * p[i] + shift; }""")
    p = random_floats(rng, (500, 4))
    m = random_floats(rng, (4, 4))  # m[row, col], as NumPy writes matrices
    shift = tuple(float(v) for v in random_floats(rng, 4))
    q = k.run(p=p, m=gpgpu.row_major(m), shift=shift, out="q")
    assert q.shape == (500, 4)
    expected = p.astype(np.float64) @ m.T.astype(np.float64) + np.array(shift)
    # A 4-term dot product plus one addition: at most 5 roundings of terms <= sum |m||p| + |s|.
    bound = 5 * EPS32 * (np.abs(p) @ np.abs(m.T) + np.abs(np.array(shift)))
    assert np.all(np.abs(q - expected) <= bound)
    # Without row_major the flat data is column-major, as GLSL stores matrices: the GLSL
    # matrix is m's transpose, so q = m.T @ p, i.e. p @ m for rows of p.
    q_col = k.run(p=p, m=m, shift=shift, out="q")
    expected_col = p.astype(np.float64) @ m.astype(np.float64) + np.array(shift)
    bound_col = 5 * EPS32 * (np.abs(p) @ np.abs(m) + np.abs(np.array(shift)))
    assert np.all(np.abs(q_col - expected_col) <= bound_col)


def test_items_and_groups(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 8, local_size_y = 4) in;
        layout(std430, binding = 0) writeonly buffer O { uint o[]; };
        uniform uint width;
        void main() {
          uvec2 g = gl_GlobalInvocationID.xy;
          if (g.x < width && g.y < gpgpu_count / width) o[g.y * width + g.x] = g.y * 1000u + g.x;
        }""")
    rows, cols = 13, 21
    o = poisoned(rows * cols, np.uint32)
    k.run(o=gpgpu.Out(o), width=cols, items=(cols, rows))
    expected = (np.arange(rows)[:, None] * 1000 + np.arange(cols)[None, :]).ravel()
    np.testing.assert_array_equal(o, expected)
    o2 = poisoned(8 * 4 * 6, np.uint32)  # 3 x 2 groups of 8 x 4 cover 24 x 8
    k.run(o=gpgpu.Out(o2), width=24, groups=(3, 2, 1))
    np.testing.assert_array_equal(
        o2[: 24 * 8], (np.arange(8)[:, None] * 1000 + np.arange(24)[None, :]).ravel())


def test_dispatch_split_beyond_group_count_limit(ctx, rng):
    # local size 1: 65537 items need 65537 groups, more than llvmpipe's 65535 in x.
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 1) in;
        layout(std430, binding = 0) writeonly buffer O { uint o[]; };
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) o[i] = i * 3u + 1u; }""")
    o = k.run(out="o", items=65537)
    np.testing.assert_array_equal(o, np.arange(65537, dtype=np.uint32) * 3 + 1)


def test_defines_and_variables(ctx):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = WG) in;
        layout(std430, binding = 0) writeonly buffer O { float o[]; };
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) o[i] = SCALE * float(i); }""",
                            defines={"WG": 16, "SCALE": 0.5})
    assert k.local_size == (16, 1, 1)
    (v,) = k.variables
    assert (v.name, v.alias, v.kind, v.glsl_type, v.dtype, v.array_size) == ("O", "o", "buffer", "float", "float32", 0)
    o = k.run(out="o", items=40)
    np.testing.assert_array_equal(o, 0.5 * np.arange(40, dtype=np.float32))


def test_copy_true_converts_and_writes_back(saxpy, rng):
    x = random_floats(rng, 200).astype(np.float64)
    y_base = random_floats(rng, 400)
    y = y_base.astype(np.float64)[::2]  # float64, not contiguous
    expected, bound = saxpy_bound(np.float32(0.5), x.astype(np.float32), y.astype(np.float32))
    saxpy.run(x=x, y=y, alpha=0.5, copy=True)
    assert y.dtype == np.float64
    assert np.all(np.abs(y - expected) <= bound)


def test_args_dict_binds_names_that_run_keywords_take(ctx, rng):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 64) in;
        layout(std430, binding = 0) buffer Items { float items[]; };
        uniform float copy;
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) items[i] *= copy; }""")
    v = random_floats(rng, 100)
    before = v.astype(np.float64)
    k.run(args={"items": v, "copy": 3.0})
    np.testing.assert_array_equal(v, (before * 3).astype(np.float32))  # exact: one rounding


def test_uniform_scalars_are_converted_only_exactly(ctx):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 1) in;
        layout(std430, binding = 0) writeonly buffer O { float o[]; };
        uniform float f; uniform int i; uniform uint u; uniform bool b;
        void main() { o[0] = f; o[1] = float(i); o[2] = float(u); o[3] = b ? 1.0 : -1.0; }""")
    o = poisoned(4, np.float32)
    k.run(f=3, i=np.int64(-5), u=np.uint8(7), b=True, o=gpgpu.Out(o), items=1)
    np.testing.assert_array_equal(o, [3, -5, 7, 1])
    with pytest.raises(gpgpu.TypeMismatchError, match="'i'.*declared int"):
        k.run(f=1.0, i=2.5, u=1, b=False, o=o, items=1)
    with pytest.raises(gpgpu.TypeMismatchError, match="does not fit uint32"):
        k.run(f=1.0, i=1, u=-1, b=False, o=o, items=1)
    with pytest.raises(gpgpu.TypeMismatchError, match="does not fit float32"):
        k.run(f=2**24 + 1, i=1, u=1, b=False, o=o, items=1)
    with pytest.raises(gpgpu.TypeMismatchError, match="does not fit int32"):
        k.run(f=1.0, i=2**31, u=1, b=False, o=o, items=1)


# ---- Bad input: a specific error, nothing runs, the caller's arrays are unchanged ------------

def test_wrong_dtype_is_refused_without_copy(saxpy, rng):
    x, y = random_floats(rng, 10), random_floats(rng, 10)
    y_before = y.copy()
    with pytest.raises(gpgpu.TypeMismatchError, match=r"'x'.*float32.*float64.*copy=True"):
        saxpy.run(x=x.astype(np.float64), y=y, alpha=1.0)
    with pytest.raises(TypeError):  # also a TypeError, for generic code
        saxpy.run(x=x.astype(np.int32), y=y, alpha=1.0)
    with pytest.raises(gpgpu.TypeMismatchError, match="big|>f4|float32"):
        saxpy.run(x=x.astype(">f4"), y=y, alpha=1.0)
    np.testing.assert_array_equal(y, y_before)


def test_non_contiguous_is_refused_without_copy(saxpy, rng):
    x, y = random_floats(rng, (10, 10)), random_floats(rng, 10)
    with pytest.raises(gpgpu.ArgumentError, match=r"'x'.*not C-contiguous.*ascontiguousarray"):
        saxpy.run(x=x[:, 0], y=y, alpha=1.0)
    with pytest.raises(ValueError):
        saxpy.run(x=np.asfortranarray(x), y=y.repeat(10), alpha=1.0)


def test_lists_are_not_arrays(saxpy):
    with pytest.raises(gpgpu.TypeMismatchError, match="NumPy array"):
        saxpy.run(x=[1.0, 2.0], y=np.ones(2, np.float32), alpha=1.0)


def test_unknown_and_missing_names(saxpy, rng):
    x, y = random_floats(rng, 10), random_floats(rng, 10)
    y_before = y.copy()
    with pytest.raises(gpgpu.UnknownArgumentError, match="(?s)'beta'.*alpha"):
        saxpy.run(x=x, y=y, alpha=1.0, beta=2.0)
    with pytest.raises(gpgpu.MissingArgumentError, match="alpha"):
        saxpy.run(x=x, y=y)
    with pytest.raises(gpgpu.ArgumentError, match="both"):
        saxpy.run(x=x, y=y, alpha=1.0, args={"alpha": 2.0})
    np.testing.assert_array_equal(y, y_before)


def test_length_mismatch(saxpy, rng):
    x, y = random_floats(rng, 10), random_floats(rng, 11)
    y_before = y.copy()
    with pytest.raises(gpgpu.SizeMismatchError, match="disagree"):
        saxpy.run(x=x, y=y, alpha=1.0)
    np.testing.assert_array_equal(y, y_before)


def test_out_errors(saxpy, rng):
    x = random_floats(rng, 10)
    with pytest.raises(gpgpu.ArgumentError, match="'alpha'.*not an output"):
        saxpy.run(x=x, y=x.copy(), alpha=1.0, out="alpha")
    with pytest.raises(gpgpu.ArgumentError, match="'nope' in out="):
        saxpy.run(x=x, y=x.copy(), alpha=1.0, out="nope")
    with pytest.raises(gpgpu.ArgumentError, match="twice"):
        saxpy.run(x=x, y=x.copy(), alpha=1.0, out=["y", "y"])


def test_compile_error_has_numbered_source_and_log(ctx):
    with pytest.raises(gpgpu.CompileError) as info:
        gpgpu.ComputeKernel(ctx, "layout(local_size_x = 1) in;\nvoid main() {\n  undefined_thing = 1;\n}")
    message = str(info.value)
    assert ">>   3 |   undefined_thing = 1;" in message
    assert "undefined_thing" in info.value.log
    assert isinstance(info.value, gpgpu.Error) and isinstance(info.value, RuntimeError)


def test_buffer_block_with_several_members_needs_a_buffer(ctx):
    k = gpgpu.ComputeKernel(ctx, """
        layout(local_size_x = 1) in;
        layout(std430, binding = 0) buffer S { float scale; float v[]; };
        void main() { v[gl_GlobalInvocationID.x] *= scale; }""")
    with pytest.raises(gpgpu.ArgumentError, match="single array member"):
        k.run(S=np.ones(4, np.float32), items=3)


# ---- Threads ---------------------------------------------------------------------------

def test_a_context_per_thread(rng):
    x, y = random_floats(rng, 1000), random_floats(rng, 1000)
    expected, bound = saxpy_bound(np.float32(2.0), x, y)
    results = {}

    def work():
        with gpgpu.Context() as ctx:
            k = gpgpu.ComputeKernel(ctx, SAXPY)
            results["y"] = k.run(x=x, y=y, alpha=2.0, out="y")

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert np.all(np.abs(results["y"] - expected) <= bound)


SLOW = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer O { float o[]; };
uniform int rounds;
uniform int sweeps;
void main() {
  uint i = gpgpu_index();
  if (i >= gpgpu_count) return;
  float v = o[i];
  for (int s = 0; s < sweeps; ++s)        // nested: llvmpipe ends any loop after 65535 trips
    for (int r = 0; r < rounds; ++r) v = v * 0.999 + 0.001;
  o[i] = v;
}
"""


def test_gil_is_released_while_the_gpu_works(ctx):
    # A kernel that runs long (calibrated to at least 0.4 s on this device) in one thread;
    # the main thread meanwhile runs a short Python loop. With the GIL held through the run,
    # the loop could not finish before the run does.
    slow = gpgpu.ComputeKernel(ctx, SLOW)
    o = np.ones(1 << 14, np.float32)
    rounds, sweeps = 256, 1
    while True:
        start = time.perf_counter()
        slow.run(o=o, rounds=rounds, sweeps=sweeps)
        if time.perf_counter() - start >= 0.4 or sweeps >= 1 << 20:
            break
        if rounds < 65535:
            rounds = min(65535, rounds * 4)
        else:
            sweeps *= 4
    started = threading.Event()
    times = {}

    def background():
        with gpgpu.Context() as own:
            k = gpgpu.ComputeKernel(own, SLOW)
            data = np.ones(1 << 14, np.float32)
            started.set()
            times["start"] = time.perf_counter()
            k.run(o=data, rounds=rounds, sweeps=sweeps)
            times["end"] = time.perf_counter()

    t = threading.Thread(target=background)
    t.start()
    started.wait()
    time.sleep(0.02)  # let the run begin
    count = 0
    while count < 1000:
        count += 1
    loop_end = time.perf_counter()
    t.join()
    # Held GIL: the loop could only end after the run's C++ call returned, at start + duration.
    # Released: it ends some 20 ms after the start, long before the run's middle.
    duration = times["end"] - times["start"]
    assert duration >= 0.2
    assert loop_end - times["start"] < duration / 2
