"""gpgpu.Context, list_devices and the exception hierarchy."""

import threading

import numpy as np
import pytest

import gpgpu


def test_info_is_a_dict_of_the_device(ctx):
    info = ctx.info()
    assert isinstance(info, dict)
    assert info["gl_version"] >= (3, 1)
    assert info["renderer"] == ctx.renderer and info["renderer"] in repr(ctx)
    assert len(info["max_compute_work_group_count"]) == 3
    assert all(isinstance(e, str) for e in info["extensions"])
    assert info["max_shader_storage_block_size"] > 0
    assert "renderer" in ctx.info_text().lower() or info["renderer"] in ctx.info_text()


def test_list_devices():
    devices = gpgpu.list_devices()
    assert devices and all({"index", "kind"} <= set(d) for d in devices)
    assert [d["index"] for d in devices] == list(range(len(devices)))


def test_unknown_device_is_a_context_error():
    with pytest.raises(gpgpu.ContextError):
        gpgpu.Context(device="no-such-gpu-anywhere")


def test_release_and_context_manager():
    with gpgpu.Context() as own:
        k = gpgpu.ComputeKernel(own, """
            layout(local_size_x = 1) in;
            layout(std430, binding = 0) buffer O { float o[]; };
            void main() { o[0] = 1.0; }""")
    assert own.released and "released" in repr(own)
    with pytest.raises(gpgpu.Error, match="released"):
        k.run(o=np.zeros(1, np.float32))


def test_a_context_serves_the_thread_that_made_it(ctx):
    errors = []

    def other():
        try:
            gpgpu.Buffer(ctx, 4)
        except gpgpu.ContextError as e:
            errors.append(str(e))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert errors and "belongs to the thread that made it" in errors[0]
    gpgpu.Buffer(ctx, 4)  # still usable on its own thread


def test_default_context_is_per_thread():
    main = gpgpu.default_context()
    assert gpgpu.default_context() is main
    seen = []
    t = threading.Thread(target=lambda: seen.append(gpgpu.default_context()))
    t.start()
    t.join()
    assert seen[0] is not main


def test_exception_hierarchy():
    assert issubclass(gpgpu.Error, RuntimeError)
    for cls in (gpgpu.ContextError, gpgpu.GLError, gpgpu.CompileError, gpgpu.ArgumentError,
                gpgpu.LimitError, gpgpu.FormatError, gpgpu.UnsupportedError, gpgpu.TransferError):
        assert issubclass(cls, gpgpu.Error)
    assert issubclass(gpgpu.ArgumentError, ValueError)
    for cls in (gpgpu.UnknownArgumentError, gpgpu.MissingArgumentError, gpgpu.TypeMismatchError,
                gpgpu.SizeMismatchError):
        assert issubclass(cls, gpgpu.ArgumentError)
    assert issubclass(gpgpu.TypeMismatchError, TypeError)
    assert issubclass(gpgpu.OutOfMemoryError, gpgpu.GLError)
    assert issubclass(gpgpu.OutOfMemoryError, MemoryError)
    assert gpgpu.SizeMismatchError.__module__ == "gpgpu"


def test_objects_dropped_on_another_thread_do_not_take_the_context_away(ctx, rng):
    # An object whose last reference goes away on another thread must not make its Context
    # current there: that thread would keep it when it ends, and the owner could never use
    # it again. Here ctx is not current on its thread (another Context was used last), which
    # is when a deletion on the other thread could have made it current there.
    x = np.arange(1, 101, dtype=np.float32)
    doomed = [gpgpu.Buffer.from_numpy(ctx, x),
              gpgpu.Texture.from_numpy(ctx, "float", x.reshape(10, 10)),
              gpgpu.ComputeKernel(ctx, """
                  layout(local_size_x = 1) in;
                  layout(std430, binding = 0) buffer O { float o[]; };
                  void main() { o[0] = 2.0; }""")]
    with gpgpu.Context() as other:
        gpgpu.Buffer(other, 1)  # other is now the context current on this thread
        t = threading.Thread(target=doomed.clear)
        t.start()
        t.join()
        assert not doomed
        b = gpgpu.Buffer.from_numpy(ctx, x)  # ctx is still usable here
        np.testing.assert_array_equal(b.to_numpy(), x)
