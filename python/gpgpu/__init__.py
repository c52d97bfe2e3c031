"""gpgpu: GPU computing with a few lines of GLSL over NumPy arrays.

You write the GLSL for one element, bind your arrays by name, run, and get the results back
in your arrays, on any OpenGL ES 3.1+ GPU or, with no GPU, on the CPU through Mesa's llvmpipe:

    import numpy as np, gpgpu
    ctx = gpgpu.Context()
    saxpy = gpgpu.ComputeKernel(ctx, '''
        layout(local_size_x = 128) in;
        layout(std430, binding = 0) readonly buffer X { float x[]; };
        layout(std430, binding = 1) buffer Y { float y[]; };
        uniform float alpha;
        void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] += alpha * x[i]; }''')
    x = np.ones(1 << 20, np.float32); y = np.full(1 << 20, 2, np.float32)
    saxpy.run(x=x, y=y, alpha=3.0)          # y is updated in place: 5, 5, ...

Binding rules (docs/python.md has them all):
  * arrays bind to storage blocks, vertex inputs and outputs by name; they must be float32,
    int32 or uint32 to match the declaration, and C-contiguous; anything else raises
    TypeMismatchError / ArgumentError, or is converted (a copy) with copy=True;
  * a writable array bound to a block the kernel may write is written back in place; a
    readonly block, a read-only array or gpgpu.In(a) is input only; gpgpu.Out(a) skips the
    upload; out="y" (or a list) returns new arrays and leaves the caller's alone;
  * scalars and tuples set uniforms; gpgpu.Texture binds samplers and images; gpgpu.Buffer
    keeps data on the GPU between kernels;
  * every failure is a gpgpu.Error subclass naming the variable, what was expected and what
    was given; nothing runs and no array changes when an argument is wrong;
  * the GIL is released while the GPU works; a Context serves the thread that made it.

Contents: Context, list_devices, ComputeKernel, Sequence (dispatches recorded once and
replayed), TransformFeedbackKernel, FragmentKernel, Buffer, Texture, In/Out/InOut, row_major,
matmul, MatmulPlan, matmul_methods, the js submodule (gpgpu.js.GPGPU), the nn submodule
(networks: gpgpu.nn.Sequential), the earth submodule (the shallow-water model:
gpgpu.earth.Model), the exceptions, and default_context().
"""

import sys as _sys
import threading as _threading

from . import _gpgpu
from ._gpgpu import (
    ArgumentError,
    Buffer,
    CompileError,
    ComputeKernel,
    Context,
    ContextError,
    DeviceLimitError,
    Direction,
    Error,
    FormatError,
    FragmentKernel,
    GLError,
    GlslOp,
    In,
    InOut,
    KernelVariable,
    LimitError,
    MatmulPlan,
    MissingArgumentError,
    Out,
    OutOfMemoryError,
    RowMajor,
    Sequence,
    SequenceUniform,
    SizeMismatchError,
    Texture,
    TransferError,
    TransformFeedbackKernel,
    TypeMismatchError,
    UnknownArgumentError,
    UnsupportedError,
    limit_profiles,
    list_devices,
    matmul_methods,
    no_index,
    row_major,
)
from . import earth, js, nn

__version__ = _gpgpu.__version__  # project(gpgpu VERSION ...), compiled into the extension

_per_thread = _threading.local()


def default_context():
    """The Context functions use when given none: one per thread (a Context serves the thread
    that made it), made on first use on the device GPGPU_DEVICE names (else "auto")."""
    ctx = getattr(_per_thread, "context", None)
    if ctx is None or ctx.released:
        ctx = Context()
        _per_thread.context = ctx
    return ctx


def matmul(a, b, method="auto", out=None, ctx=None, copy=False):
    """C = A @ B in float32 on the GPU.

    a, b: 2-D float32 C-contiguous NumPy arrays (copy=True converts others), or two Buffers
    with 2-D shapes (the product then stays on the GPU as a Buffer). method: "auto" or one of
    matmul_methods(). out: an array (or Buffer) of shape (m, n) to write into. Each entry errs
    by at most about (k + 2) * 2**-24 * sum_i |a_ri b_ic| (float32 dot products)."""
    return _gpgpu.matmul(ctx if ctx is not None else default_context(), a, b, method, out, copy)


def _context_for(x, ctx):
    if ctx is not None:
        return ctx
    if isinstance(x, Buffer):
        return x.context
    return default_context()


def reduce(x, op="sum", *, components=1, range=None, out=None, out_offset=0, ctx=None,
           copy=False):
    """Reduces x on the GPU: "sum" (default), "product", "min", "max", or a GlslOp.

    x: a float32/int32/uint32 NumPy array (uploaded straight from its memory) or a Buffer.
    components: 2..4 reduces vecN elements per component (x holds n*components values).
    range: (first, count) in elements. Returns a NumPy scalar (or an array of `components`);
    with out= a Buffer, writes the result to out[out_offset...] on the GPU and returns out
    without waiting. Float sums err by at most reduce_error_depth(n) * 2**-24 * sum|x_i|;
    integer sums and products wrap modulo 2**32."""
    return _gpgpu.reduce(_context_for(x, ctx), x, op, components, range, out, out_offset, copy)


def argmin(x, *, range=None, out=None, out_offset=0, ctx=None, copy=False):
    """(index, value) of the first smallest element of x (NaNs skipped); index is
    gpgpu.no_index for an empty range. With out= a uint32 Buffer, the index goes there."""
    return _gpgpu.argmin(_context_for(x, ctx), x, range, out, out_offset, copy)


def argmax(x, *, range=None, out=None, out_offset=0, ctx=None, copy=False):
    """(index, value) of the first largest element of x (NaNs skipped); see argmin."""
    return _gpgpu.argmax(_context_for(x, ctx), x, range, out, out_offset, copy)


def reduce_error_depth(n, components=1, builtin_op=True, ctx=None):
    """The depth d of reduce's summation tree for n elements on this device:
    |sum - exact| <= d * 2**-24 * sum|x_i|."""
    return _gpgpu.reduce_error_depth(ctx if ctx is not None else default_context(), n,
                                     components, builtin_op)


__all__ = [name for name in dir() if not name.startswith("_")]
