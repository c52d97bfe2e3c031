"""gpgpu.nn from Python: building, training from NumPy arrays (float32 samples and uint8 images),
predictions against the C++ command-line tool's, save/load round trips, backends, and bad input.

Float64 references where a computation is checked; the bounds are stated where they are used.
"""

import os
import subprocess

import numpy as np
import pytest

import gpgpu
import gpgpu.nn as nn

from conftest import EPS32

CLI = os.environ.get("GPGPU_CLI")


def small_net(ctx, backend="auto", seed=3):
    return nn.Sequential((1, 12, 12), [nn.Conv2D(4, kernel=3, padding=1), nn.ReLU(),
                                       nn.MaxPool2D(), nn.Flatten(), nn.Dense(5)],
                         ctx=ctx, backend=backend, seed=seed)


def separable(rng, n=320, classes=5, size=12):
    """Images whose class is the brightest of five blobs, plus noise: a net learns it in an
    epoch. float32 in [0, 1], labels int64."""
    labels = rng.integers(0, classes, n)
    x = rng.uniform(0, 0.3, (n, 1, size, size)).astype(np.float32)
    for i, c in enumerate(labels):
        row, col = divmod(int(c), 3)
        x[i, 0, 3 * row + 1:3 * row + 4, 4 * col:4 * col + 3] += 0.7
    return x, labels


def test_layers_describe_themselves_and_compare():
    assert repr(nn.Conv2D(8, kernel=5, padding=2)) == \
        "<gpgpu.nn conv2d 8 filters 5x5, stride 1, padding 2>"
    assert nn.Dense(10) == nn.Dense(10) and nn.Dense(10) != nn.Dense(11)
    assert nn.MaxPool2D().size == 2 and nn.Dropout(0.3).rate == pytest.approx(0.3)
    with pytest.raises(gpgpu.ArgumentError, match="init must be"):
        nn.Dense(3, init="glorot")
    with pytest.raises(gpgpu.ArgumentError, match="rate must be in"):
        nn.Dropout(1.0)


def test_padded_pools_and_activations_have_fields_reprs_and_errors(ctx):
    conv = nn.Conv2D(4, kernel=4, pads=(1, 1, 2, 2))
    assert conv.pads == (1, 1, 2, 2) and conv.padding == 0
    assert repr(conv) == ("<gpgpu.nn conv2d 4 filters 4x4, stride 1, "
                          "padding (top 1, left 1, bottom 2, right 2)>")
    assert nn.Conv2D(4, padding=1).pads is None
    assert nn.Conv2D(4, pads=(1, 1, 1, 1)) == nn.Conv2D(4, padding=1)  # the same layer
    pool = nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    assert (pool.size, pool.stride, pool.padding, pool.pads, pool.ceil_mode,
            pool.count_include_pad) == (3, 2, 1, None, True, False)
    assert repr(pool) == \
        "<gpgpu.nn avgpool2d 3x3, stride 2, padding 1, ceil mode, padding not counted>"
    assert nn.AvgPool2D().count_include_pad and not nn.MaxPool2D().ceil_mode
    assert repr(nn.MaxPool2D(2, stride=1, pads=(0, 0, 1, 1))) == \
        "<gpgpu.nn maxpool2d 2x2, stride 1, padding (top 0, left 0, bottom 1, right 1)>"
    assert nn.LeakyReLU().alpha == pytest.approx(0.01) and nn.LeakyReLU(0.2).type == "leakyrelu"
    assert nn.LeakyReLU(0.2) != nn.LeakyReLU(0.3)
    assert (nn.Clip().min, nn.Clip().max) == (0, 6) and nn.Clip(-1, 1) == nn.Clip(-1, 1)
    assert repr(nn.GlobalAvgPool2D()) == "<gpgpu.nn globalavgpool2d>"
    for make, message in [(lambda: nn.LeakyReLU(-0.1), "alpha must be a finite number >= 0"),
                          (lambda: nn.Clip(1.0, 0.5), "min < max"),
                          (lambda: nn.Clip(0.0, float("inf")), "finite"),
                          (lambda: nn.Conv2D(4, padding=1, pads=(1, 1, 1, 1)), "not both"),
                          (lambda: nn.MaxPool2D(2, pads=(1, 1)), r"\(top, left, bottom, right\)"),
                          (lambda: nn.AvgPool2D(2, pads=(0, -1, 0, 0)), "integers >= 0")]:
        with pytest.raises(gpgpu.ArgumentError, match=message):
            make()
    with pytest.raises(gpgpu.ArgumentError, match="as large as the 2x2 window"):
        nn.Sequential((1, 6, 6), [nn.MaxPool2D(2, padding=2)], ctx=ctx)
    model = nn.Sequential((2, 9, 8), [nn.Conv2D(3, kernel=4, pads=(1, 1, 2, 2)), nn.LeakyReLU(0.1),
                                      nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True),
                                      nn.Clip(-1, 1), nn.GlobalAvgPool2D(), nn.Flatten()],
                          ctx=ctx)
    assert model.output_shape == (3,)
    again = nn.from_json(model.to_json(), ctx=ctx)
    assert again.layers == model.layers and again.summary() == model.summary()


def test_help_teaches_with_examples():
    for obj in (nn.Sequential, nn.Sequential.train, nn.Sequential.predict, nn.load,
                nn.load_fashion_mnist, nn.Conv2D, nn.Adam, nn):
        doc = obj.__doc__ or ""
        assert ">>>" in doc or "    " in doc, obj  # an indented usage example
    assert "model.train(" in nn.Sequential.__doc__


def test_a_model_is_built_as_described(ctx):
    model = small_net(ctx)
    assert model.input_shape == (1, 12, 12) and model.output_shape == (5,)
    assert [layer.type for layer in model.layers] == \
        ["conv2d", "relu", "maxpool2d", "flatten", "dense"]
    params = model.parameters()
    assert params["00_weight"].shape == (4, 1, 3, 3)
    assert params["04_weight"].shape == (5, 4 * 6 * 6)
    assert model.parameter_count == sum(p.size for p in params.values())
    again = nn.from_json(model.to_json(), ctx=ctx)
    assert again.layers == model.layers
    with pytest.raises(gpgpu.TypeMismatchError, match="is not a layer"):
        nn.Sequential((4,), [nn.Dense(3), "relu"], ctx=ctx)
    with pytest.raises(gpgpu.ArgumentError):
        nn.Sequential((1, 4, 4), [nn.Conv2D(2, kernel=5)], ctx=ctx)  # larger than the image
    with pytest.raises(gpgpu.ArgumentError, match="backend"):
        nn.Sequential((4,), [nn.Dense(3)], ctx=ctx, backend="quantum")


@pytest.mark.parametrize("backend", ["cpu", "compute"])
def test_training_from_float_arrays_lowers_the_loss(ctx, rng, backend):
    x, y = separable(rng)
    model = small_net(ctx, backend)
    reports = []
    history = model.train(x, y, epochs=3, batch=32, optimizer=nn.Adam(5e-3), progress=False,
                          callback=reports.append, validation=(x[:64], y[:64]))
    assert [h["epoch"] for h in history] == [0, 1, 2]
    # A net that learns nothing stays near ln 5 = 1.61 and 20%. Over 200 seeds of the data the
    # last epoch's loss was at most 0.505 of the first's (whose mean is near ln 5) and its
    # accuracy at least 90%, on both backends.
    assert history[-1]["loss"] < 0.6 * history[0]["loss"], history
    assert history[-1]["accuracy"] >= 0.8, history
    assert history[-1]["steps"] == len(x) // 32
    assert 0 <= history[-1]["val_accuracy"] <= 1
    assert reports and reports[-1]["step"] == reports[-1]["steps"] == len(x) // 32
    assert model.evaluate(x, y)["accuracy"] > 0.8


def test_evaluate_is_the_float64_loss_of_the_logits(ctx, rng):
    x, y = separable(rng, n=50)
    model = small_net(ctx)
    # The same batches as evaluate's: the cpu backend's BLAS may sum in another order for
    # another number of rows (OpenBLAS on AVX-512 does), which moves the logits' last bits.
    logits = model.predict(x, logits=True, batch=16).astype(np.float64)
    e = model.evaluate(x, y, batch=16)
    z = logits - logits.max(axis=1, keepdims=True)
    loss = np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(y)), y]
    # The C++ side sums the same float64 terms (exp/log of libm): equal to within rounding.
    assert e["loss"] == pytest.approx(loss.mean(), rel=1e-12)
    assert np.array_equal(e["predictions"], np.argmax(logits, axis=1))
    assert e["confusion"].sum() == len(y)
    assert np.array_equal(model.classify(x), np.argmax(logits, axis=1))


def test_predict_pads_the_last_batch_without_changing_any_sample(ctx, rng):
    x, _ = separable(rng, n=30)
    model = small_net(ctx, "cpu")
    padded = model.predict(x[:23], batch=10)  # batches of 10, 10 and 3 padded to 10
    assert padded.shape == (23, 5) and padded.dtype == np.float32
    # Against the same 23 samples followed by 7 more, so that every batch holds 10 real ones:
    # the same number of rows in every call (the cpu backend's BLAS may sum in another order
    # for another number of rows), so the padding rows are the only difference.
    full = model.predict(x, batch=10)
    assert np.array_equal(full[:23], padded)


def test_normalization_of_reads_uint8_images_and_refuses_other_dtypes(rng):
    images = rng.integers(0, 256, size=(9, 1, 5, 7)).astype(np.uint8)
    mean, std = nn.normalization_of(images)
    v = images.astype(np.float64) / 255
    # Both are float64 sums of 315 pixels rounded once to float32: 2 float32 ulps of slack.
    assert abs(mean - v.mean()) <= 2 * EPS32 * v.mean()
    assert abs(std - v.std()) <= 2 * EPS32 * v.std() + 1e-7
    # By the dtype itself, not its item size (pybind11 < 2.12 misreads that under NumPy 2).
    for other in (np.int8, np.uint16, np.float32, np.bool_):
        with pytest.raises(gpgpu.TypeMismatchError, match="give uint8 images"):
            nn.normalization_of(images.astype(other))


def test_uint8_images_train_on_the_device_like_gpgpu_train(ctx, rng):
    x, y = separable(rng)
    images = np.round(x * 255).astype(np.uint8)
    model = small_net(ctx)
    model.normalization = nn.normalization_of(images)
    history = model.train(images, y, epochs=3, batch=32, optimizer=nn.Adam(5e-3), progress=False)
    assert history[-1]["loss"] < 0.5 * history[0]["loss"], history
    # uint8 images are normalised as the model says, so float samples normalised the same way
    # (the same float32 operations in the same order: the same bits) give the same predictions.
    mean, std = model.normalization
    as_floats = ((images.astype(np.float32) / np.float32(255) - np.float32(mean)) /
                 np.float32(std)).astype(np.float32)
    assert np.array_equal(model.classify(images), model.classify(as_floats))


def test_save_and_load_round_trip_bit_for_bit(ctx, rng, tmp_path):
    x, y = separable(rng, n=64)
    model = small_net(ctx)
    model.train(x, y, epochs=1, batch=16, progress=False)
    model.class_names = [f"class {i}" for i in range(5)]
    before = model.predict(x)
    for path in (tmp_path / "model", tmp_path / "model.npz"):
        model.save(str(path))
        again = nn.load(str(path), ctx=ctx, backend=model.active_backend)
        assert again.class_names == model.class_names
        for key, value in model.parameters().items():
            assert np.array_equal(again.parameters()[key], value), key
        assert np.array_equal(again.predict(x), before)
    with pytest.raises(gpgpu.Error):
        nn.load(str(tmp_path / "missing"), ctx=ctx)


def test_predictions_match_the_command_line_tool(ctx, rng, tmp_path):
    """The C++ tool classifies the same images with the saved model: the same classes, except
    where two logits are within float32 rounding of each other (batches of another size may add
    in another order on the cpu backend's BLAS): a gap below 1e-4 (1 + max |z|) excuses one."""
    if CLI is None:
        pytest.skip("GPGPU_CLI is not set (the ctest entry sets it)")
    x, y = separable(rng, n=100)
    model = small_net(ctx, backend="cpu")
    model.train(x, y, epochs=1, batch=20, progress=False)
    model.save(str(tmp_path / "model"))
    np.save(tmp_path / "images.npy", x)  # float32 in [0, 1]; normalization (0, 1): as they are
    run = subprocess.run([CLI, "predict", str(tmp_path / "model"), str(tmp_path / "images.npy"),
                          "--backend", "cpu", "--batch", "37", "--no-plots",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    theirs = np.load(tmp_path / "out" / "predictions.npy")
    ours = model.classify(x)
    logits = model.predict(x, logits=True).astype(np.float64)
    top2 = np.sort(logits, axis=1)[:, -2:]
    near_tie = (top2[:, 1] - top2[:, 0]) < 1e-4 * (1 + np.abs(logits).max(axis=1))
    assert np.all((ours == theirs) | near_tie)


def test_backends_agree_within_float32_rounding(ctx, rng):
    x, _ = separable(rng, n=16)
    cpu = small_net(ctx, "cpu")
    gpu = small_net(ctx, "compute")
    gpu.set_parameters(cpu.parameters())
    a = cpu.predict(x, logits=True).astype(np.float64)
    b = gpu.predict(x, logits=True).astype(np.float64)
    # Each logit is a sum of K = 144 (dense) products of sums of 9 products (conv): in another
    # order each side errs by <= gamma_K sum |terms|; bound it by 2 * 160 * EPS32 * sum |terms|,
    # with sum |terms| <= |w|_1 max|activation| estimated from the float64 forward pass.
    params = {k: v.astype(np.float64) for k, v in cpu.parameters().items()}
    conv = np.abs(params["00_weight"]).sum() + np.abs(params["00_bias"]).sum()
    scale = (np.abs(params["04_weight"]).sum(axis=1) * conv * np.abs(x).max() +
             np.abs(params["04_bias"]))
    assert np.all(np.abs(a - b) <= 2 * 160 * EPS32 * scale)


def test_bad_input_is_refused_by_name_and_changes_nothing(ctx, rng):
    model = small_net(ctx)
    x, y = separable(rng, n=40)
    before = model.parameters()
    with pytest.raises(gpgpu.SizeMismatchError, match=r"samples of \(1, 12, 12\)"):
        model.train(x[:, :, :10], y, progress=False)
    with pytest.raises(gpgpu.TypeMismatchError, match="copy=True"):
        model.train(x.astype(np.float64), y, progress=False)
    with pytest.raises(gpgpu.TypeMismatchError, match="integer labels"):
        model.train(x, y[:-1], progress=False)
    with pytest.raises(gpgpu.TypeMismatchError, match="integer labels"):
        model.train(x, y.astype(np.float32), progress=False)
    with pytest.raises(gpgpu.ArgumentError, match="label 7 of sample 3"):
        bad = y.copy()
        bad[3] = 7
        model.train(x, bad, progress=False)
    with pytest.raises(gpgpu.ArgumentError, match="batch size"):
        model.train(x, y, batch=41, progress=False)
    with pytest.raises(gpgpu.ArgumentError, match="schedule"):
        model.train(x, y, schedule="wavy", progress=False)
    with pytest.raises(gpgpu.SizeMismatchError, match="04_weight must have the shape"):
        wrong = dict(before)
        wrong["04_weight"] = np.zeros((5, 3), np.float32)
        model.set_parameters(wrong)
    for key, value in model.parameters().items():
        assert np.array_equal(value, before[key]), key
    # copy=True converts float64 explicitly.
    assert model.predict(x.astype(np.float64), copy=True).shape == (40, 5)


def test_builtin_nets_carry_their_recipe(ctx):
    assert "small" in nn.builtin_names()
    model = nn.builtin("small", ctx=ctx)
    assert model.output_shape == (10,)
    assert model.recipe["batch"] == 32 and isinstance(model.recipe["optimizer"], nn.Adam)
    with pytest.raises(gpgpu.ArgumentError, match="small"):
        nn.builtin("huge", ctx=ctx)


def test_fashion_mnist_subset_trains_for_an_epoch(ctx):
    try:
        images, labels = nn.load_fashion_mnist("train", limit=600)
    except gpgpu.Error as error:
        pytest.skip(f"Fashion-MNIST is not installed: {error}")
    assert images.shape == (600, 1, 28, 28) and images.dtype == np.uint8
    assert labels.dtype == np.int32 and labels.max() <= 9
    assert len(nn.fashion_mnist_classes()) == 10
    model = nn.builtin("small", ctx=ctx)
    x = images.astype(np.float32) / 255
    history = model.train(x, labels, epochs=2, batch=32, progress=False)
    assert history[1]["loss"] < history[0]["loss"]
