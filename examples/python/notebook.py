#!/usr/bin/env python3
"""gpgpu from Python, notebook style: each cell is a step you could paste into Jupyter.

Run it with the interpreter the module was built for (the README's main command does):
    /usr/bin/python3 examples/python/notebook.py
Every result is checked against NumPy; the script stops with an error if one disagrees.
"""

# %% [1] A context: a GPU through EGL if there is one, else Mesa's llvmpipe on the CPU.
import numpy as np

import gpgpu
import gpgpu.js

ctx = gpgpu.Context()
info = ctx.info()
print(f"[1] {info['renderer']} | {info['version']} | "
      f"max work groups {info['max_compute_work_group_count'][0]}")

rng = np.random.default_rng(2026)

# %% [2] SAXPY with a compute shader: y += alpha * x, y updated in place.
saxpy = gpgpu.ComputeKernel(ctx, """
    layout(local_size_x = 128) in;
    layout(std430, binding = 0) readonly buffer X { float x[]; };
    layout(std430, binding = 1) buffer Y { float y[]; };
    uniform float alpha;
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; }""")
x = rng.uniform(-1, 1, 1 << 20).astype(np.float32)
y = rng.uniform(-1, 1, 1 << 20).astype(np.float32)
expected = y.astype(np.float64) + 2.5 * x.astype(np.float64)
saxpy.run(x=x, y=y, alpha=2.5)
err = np.max(np.abs(y - expected))
assert err <= 4 * 2**-24 * 3.5, err
print(f"[2] saxpy over {x.size} floats: max |error| vs float64 = {err:.2e}")

# %% [3] Results as new arrays (out=), integers, and a clear error for a wrong dtype.
count = gpgpu.ComputeKernel(ctx, """
    layout(local_size_x = 64) in;
    layout(std430, binding = 0) readonly buffer V { int v[]; };
    layout(std430, binding = 1) writeonly buffer S { int s[]; };
    void main() { uint i = gpgpu_index(); if (i < gpgpu_count) s[i] = v[i] * v[i] - int(i); }""")
v = rng.integers(-1000, 1000, 10).astype(np.int32)
s = count.run(v=v, out="s")
assert np.array_equal(s, v.astype(np.int64) ** 2 - np.arange(10))
print(f"[3] int32 kernel: {s[:5]} ...")
try:
    count.run(v=v.astype(np.int64), out="s")
except gpgpu.TypeMismatchError as e:
    print(f"[3] int64 input refused: {e}")

# %% [4] Buffers keep data on the GPU between kernels: no host round trip in between.
xb = gpgpu.Buffer.from_numpy(ctx, x)
yb = gpgpu.Buffer.from_numpy(ctx, np.zeros_like(x))
for _ in range(4):
    saxpy.run(x=xb, y=yb, alpha=0.25)  # y = 4 * 0.25 * x, all on the GPU
assert np.allclose(yb.to_numpy(), x, rtol=4 * 2**-24, atol=0)
print(f"[4] four chained runs on Buffers: y == x ({yb})")

# %% [5] gpgpu.js: transform feedback, as in the browser library.
g = gpgpu.js.GPGPU(ctx)
A = np.array([10, 20, 30, 40, 50, 60], np.float32)
B = np.array([1, 2, 3, 4, 5, 6], np.float32)
C, D = g.compute(id="AddMulVec", vertex_shader="""
    in float A; in float B; out float C; out float D;
    void main() { C = A + B; D = A * B; }""", args={"A": A, "B": B}, out=["C", "D"])
assert np.array_equal(C, A + B) and np.array_equal(D, A * B)
print(f"[5] gpgpu.js AddMulVec: C = {C}, D = {D}")

# %% [6] A fragment shader multiplies two matrices held in textures (GPGPUtility's way).
m, k, n = 48, 32, 40
a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
multiply = gpgpu.FragmentKernel(ctx, """
    uniform sampler2D A; uniform sampler2D B; out float C;
    void main() {
      ivec2 ij = gpgpu_coord();
      float sum = 0.0;
      for (int t = 0; t < textureSize(A, 0).x; ++t)
        sum += texelFetch(A, ivec2(t, ij.y), 0).r * texelFetch(B, ivec2(ij.x, t), 0).r;
      C = sum;
    }""")
c = multiply.run(A=g.make_texture_info("float", (m, k), a),
                 B=gpgpu.Texture.from_numpy(ctx, "float", b), out="C", shape=(m, n))
bound = (k + 1) * 2**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
assert np.all(np.abs(c - a.astype(np.float64) @ b.astype(np.float64)) <= bound)
print(f"[6] fragment-shader product {c.shape}: within the float32 bound")

# %% [7] gpgpu.matmul: the library's fastest method for this device.
a = rng.uniform(-1, 1, (256, 300)).astype(np.float32)
b = rng.uniform(-1, 1, (300, 200)).astype(np.float32)
c = gpgpu.matmul(a, b, ctx=ctx)
ref = a.astype(np.float64) @ b.astype(np.float64)
bound = (300 + 2) * 2**-24 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
assert np.all(np.abs(c - ref) <= bound)
print(f"[7] matmul {a.shape} @ {b.shape}: max |error| {np.max(np.abs(c - ref)):.2e}; "
      f"methods: {', '.join(gpgpu.matmul_methods())}")

# %% [8] Mistakes are exceptions that say what to change.
try:
    gpgpu.ComputeKernel(ctx, "layout(local_size_x = 1) in;\nvoid main() {\n  y = 1.0;\n}")
except gpgpu.CompileError as e:
    print("[8] " + str(e).replace("\n", "\n    "))
