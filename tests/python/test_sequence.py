"""gpgpu.Sequence: replays give the bits of the same runs, uniform handles, refusals."""

import numpy as np
import pytest

import gpgpu
from conftest import EPS32, random_floats

SCALE = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer Y { float y[]; };
uniform float a;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) y[i] = a * x[i] + 1.0; }
"""

ADD = """
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Y { float y[]; };
layout(std430, binding = 1) buffer S { float s[]; };
uniform uint offset;
void main() { uint i = gpgpu_index(); if (i < gpgpu_count) s[i] += y[i] + float(offset); }
"""


def test_replays_match_runs_and_take_new_uniforms(ctx, rng):
    n = 1000
    x = random_floats(rng, n)
    s0 = random_floats(rng, n)
    scale, add = gpgpu.ComputeKernel(ctx, SCALE), gpgpu.ComputeKernel(ctx, ADD)
    bx = gpgpu.Buffer.from_numpy(ctx, x)
    by = gpgpu.Buffer.from_numpy(ctx, np.full(n, np.nan, np.float32))
    runs_s = gpgpu.Buffer.from_numpy(ctx, s0)
    seq_s = gpgpu.Buffer.from_numpy(ctx, s0)
    seq = gpgpu.Sequence(ctx, "step")
    seq.record(scale, x=bx, y=by, a=2.0)
    seq.record(add, y=by, s=seq_s, offset=1)
    assert len(seq) == 2 and seq.replayable
    assert seq.barriers[0][0] == 1  # add reads y, which scale wrote
    offset = seq.uniform("offset")
    assert offset.glsl_type == "uint" and offset.dispatches == 1
    for k in range(3):
        scale.run(x=bx, y=by, a=2.0)
        add.run(y=by, s=runs_s, offset=k)
        offset.set(k)
        seq.replay()
    np.testing.assert_array_equal(seq_s.to_numpy(), runs_s.to_numpy())
    want = s0.astype(np.float64) + 3 * (2.0 * x.astype(np.float64) + 1.0) + 3
    assert np.all(np.abs(seq_s.to_numpy() - want) <= 12 * EPS32 * (np.abs(want) + 4))


def test_errors(ctx, rng):
    scale = gpgpu.ComputeKernel(ctx, SCALE)
    bx = gpgpu.Buffer.from_numpy(ctx, random_floats(rng, 64))
    by = gpgpu.Buffer(ctx, 64, np.float32)
    seq = gpgpu.Sequence(ctx)
    with pytest.raises(gpgpu.ArgumentError, match="Buffer"):
        seq.record(scale, x=random_floats(rng, 64), y=by, a=1.0)  # a NumPy array
    with pytest.raises(gpgpu.MissingArgumentError):
        seq.record(scale, x=bx, y=by)
    assert len(seq) == 0
    seq.record(scale, x=bx, y=by, a=1.0)
    with pytest.raises(gpgpu.TypeMismatchError):
        seq.uniform("a").set(2**40)
    with pytest.raises(gpgpu.UnknownArgumentError):
        seq.uniform("nothing")
    # What a capture would run at once is refused.
    with pytest.raises(gpgpu.UnsupportedError):
        seq.capture(lambda: by.upload(np.zeros(64, np.float32)))
    seq.capture(lambda: scale.run(x=bx, y=by, a=3.0))
    assert len(seq) == 2
    assert "2 dispatches" in seq.describe()
    seq.replay()
    by.release()
    assert not seq.replayable
    with pytest.raises(gpgpu.ArgumentError, match="released or replaced"):
        seq.replay()
