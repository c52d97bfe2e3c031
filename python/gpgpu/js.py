"""The gpgpu.js API in Python: transform-feedback kernels named by id.

    import gpgpu.js
    g = gpgpu.js.GPGPU(ctx)              # or gpgpu.js.CreateGPGPU() on the default context
    g.compute(id="AddVec", vertex_shader=vs, args={"A": a, "B": b, "C": c})
    t = g.make_texture_info("float", (2, 8), a)

As in gpgpu.js, a kernel is compiled the first time its id is used; unlike it, integers work
(declare integer outputs `flat out`), the element count comes from the outputs, and every
mistake raises a gpgpu.Error naming the variable.
"""

from ._gpgpu import js as _js

GPGPU = _js.GPGPU


def CreateGPGPU(ctx=None):  # noqa: N802 (gpgpu.js's name)
    """gpgpu.js's CreateGPGPU(): a GPGPU on `ctx`, else on gpgpu.default_context()."""
    from . import default_context

    return GPGPU(ctx if ctx is not None else default_context())


__all__ = ["GPGPU", "CreateGPGPU"]
