"""Shared fixtures for the Python module's tests.

Like tests/support/test_support.hpp for the C++ tests: one Context per test process, a fresh
random generator per test (seeded from the test's name and a per-process value, printed so a
failure can be reproduced), random data that never contains exact zeros, poison values for
outputs, and the float32 unit roundoff for tolerances.
"""

import os
import random
import zlib

import numpy as np
import pytest

import gpgpu

EPS32 = 2.0**-24  # unit roundoff of float32: a correctly rounded operation errs by <= EPS32*|x|
POISON_INT = -0x5A5A5A5B
POISON_UINT = 0xA5A5A5A5

_PROCESS_SEED = int(os.environ.get("GPGPU_TEST_SEED", random.SystemRandom().randrange(2**31)))


@pytest.fixture(scope="session")
def ctx():
    context = gpgpu.Context(device=os.environ.get("GPGPU_DEVICE", "auto"))
    yield context
    context.release()


@pytest.fixture
def rng(request):
    seed = (zlib.crc32(request.node.nodeid.encode()) ^ _PROCESS_SEED) & 0x7FFFFFFF
    print(f"random seed {seed} (GPGPU_TEST_SEED={_PROCESS_SEED} reproduces this run)")
    return np.random.default_rng(seed)


def random_floats(rng, shape, lo=0.25, hi=1.0):
    """float32 values with |x| in [lo, hi) and a random sign: never zero."""
    magnitude = rng.uniform(lo, hi, size=shape)
    sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0)
    return (magnitude * sign).astype(np.float32)


def random_ints(rng, shape, lo=-1000, hi=1000):
    """int32 values in [lo, hi) without zeros."""
    values = rng.integers(lo, hi, size=shape, dtype=np.int64)
    values[values == 0] = hi - 1 if hi - 1 != 0 else lo
    return values.astype(np.int32)


def random_uints(rng, shape, lo=1, hi=1 << 20):
    return rng.integers(lo, hi, size=shape, dtype=np.int64).astype(np.uint32)


def poisoned(shape, dtype):
    """An output array filled with a value no kernel produces by accident."""
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return np.full(shape, np.nan, np.float32)
    if dtype == np.int32:
        return np.full(shape, POISON_INT, np.int32)
    return np.full(shape, POISON_UINT, np.uint32)


@pytest.fixture(scope="module")
def earth_fits(ctx):
    """The earth model on this device, or the refusal a device too small for it must give.

    Its kernels bind 5 to 7 storage buffers in a compute shader (OpenGL ES 3.1 guarantees 4): on
    a device or a device-limit profile with fewer, making a model must fail naming the limit
    and both figures, which this checks before the module's tests are skipped for that reason.
    """
    import gpgpu.earth as earth

    try:
        earth.Model(case=2, level=1, ctx=ctx)
    except gpgpu.DeviceLimitError as e:
        assert e.limit.startswith("GL_MAX_") and e.needed > e.allowed, str(e)
        pytest.skip(f"the earth model is refused on this device, as it must be: {e}")
