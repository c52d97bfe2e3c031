"""Device-limit profiles from Python: listed, chosen per Context, and a kernel over one refused
with gpgpu.DeviceLimitError naming the limit and both figures (docs/portability.md)."""

import numpy as np
import pytest

import gpgpu

WIDE = """
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Out { uint out_values[]; };
void main() { out_values[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x; }
"""


def test_the_profiles_are_listed_with_their_figures_and_sources():
    profiles = {p["name"]: p for p in gpgpu.limit_profiles()}
    assert {"es31-minimum", "rpi5-v3d", "mali-g610-panfrost"} <= set(profiles)
    minimum = profiles["es31-minimum"]
    assert minimum["gles"] == (3, 1)
    assert minimum["limits"]["GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS"] == 128
    assert minimum["limits"]["GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS"] == 4
    assert all(p["source"] for p in profiles.values())


def test_a_kernel_over_the_profile_is_refused_naming_the_limit():
    with gpgpu.Context(limits="es31-minimum") as small:
        with pytest.raises(gpgpu.DeviceLimitError) as refused:
            gpgpu.ComputeKernel(small, WIDE)
        e = refused.value
        assert isinstance(e, gpgpu.Error)
        assert e.limit == "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS"
        assert (e.needed, e.allowed) == (256, 128)
        assert "256" in str(e) and "128" in str(e)


def test_the_same_kernel_runs_where_the_profile_allows_it():
    with gpgpu.Context(limits="rpi5-v3d") as pi:
        k = gpgpu.ComputeKernel(pi, WIDE)
        out = np.full(512, 0xA5A5A5A5, dtype=np.uint32)
        k.run(out_values=gpgpu.Out(out), items=512)
        assert np.array_equal(out, np.arange(512, dtype=np.uint32))


def test_an_unknown_profile_is_a_context_error_listing_the_profiles():
    with pytest.raises(gpgpu.ContextError, match="es31-minimum"):
        gpgpu.Context(limits="no-such-gpu")
