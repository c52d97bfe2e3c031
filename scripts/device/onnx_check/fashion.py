"""What the ONNX check's steps share: the Fashion-MNIST test images (normalised as the
models were trained: (x / 255 - MEAN) / STD), the network's layer list, and a model in
gpgpu's own format (model.json + one .npy per parameter, docs/nn.md) written from weights in
PyTorch's layouts, so that the same network can be built natively without ONNX."""

import gzip
import json
import pathlib

import numpy as np

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's pixel mean and standard deviation in [0, 1]
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
           "Bag", "Ankle boot"]

# The network: padding, a stride-2 convolution and BatchNorm, as the issue asks. Each entry:
# gpgpu's JSON layer, and the names of its parameters in the weight dictionary.
LAYERS = [
    ({"type": "conv2d", "filters": 32, "kernel": 3, "stride": 1, "padding": 1}, ["c1.weight", "c1.bias"]),
    ({"type": "batchnorm"}, ["b1.weight", "b1.bias", "b1.running_mean", "b1.running_var"]),
    ({"type": "relu"}, []),
    ({"type": "conv2d", "filters": 64, "kernel": 3, "stride": 2, "padding": 1}, ["c2.weight", "c2.bias"]),
    ({"type": "batchnorm"}, ["b2.weight", "b2.bias", "b2.running_mean", "b2.running_var"]),
    ({"type": "relu"}, []),
    ({"type": "maxpool2d", "size": 2}, []),
    ({"type": "flatten"}, []),
    ({"type": "dense", "units": 128}, ["d1.weight", "d1.bias"]),
    ({"type": "relu"}, []),
    ({"type": "dense", "units": 10}, ["d2.weight", "d2.bias"]),
]
# (The PyTorch network has a Dropout before its last layer: torch.onnx.export leaves it out
# in evaluation mode, and in gpgpu it would be no stage in evaluation either.)
PARAMETER_NAMES = {"weight": "weight", "bias": "bias"}
BN_NAMES = ["gamma", "beta", "running_mean", "running_var"]


def read_idx(path):
    with (gzip.open(path) if str(path).endswith(".gz") else open(path, "rb")) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


def find(directory, stem):
    for name in (stem, stem + ".gz"):
        if (pathlib.Path(directory) / name).exists():
            return pathlib.Path(directory) / name
    raise FileNotFoundError(f"{stem} in {directory}")


def dataset(directory, split, limit=0):
    """float32 (N, 1, 28, 28) normalised images and int64 labels."""
    images = read_idx(find(directory, f"{split}-images-idx3-ubyte"))
    labels = read_idx(find(directory, f"{split}-labels-idx1-ubyte")).astype(np.int64)
    if limit:
        images, labels = images[:limit], labels[:limit]
    x = ((images.astype(np.float32) / 255 - MEAN) / STD)[:, None, :, :]
    return np.ascontiguousarray(x, dtype=np.float32), labels


def write_native(directory, weights):
    """The network in gpgpu's format from {name: float32 array} in PyTorch's layouts."""
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    layers, parameters = [], []
    for index, (layer, names) in enumerate(LAYERS):
        layers.append(layer)
        kinds = BN_NAMES if layer["type"] == "batchnorm" else ["weight", "bias"]
        for kind, name in zip(kinds, names):
            key = f"{index:02}_{kind}"
            array = np.ascontiguousarray(weights[name], dtype=np.float32)
            np.save(directory / f"{key}.npy", array)
            parameters.append({"key": key, "shape": list(array.shape),
                               "trainable": kind not in ("running_mean", "running_var")})
    model = {"format": "gpgpu-nn", "version": 1, "input": [1, 28, 28], "layers": layers,
             "normalization": {"mean": MEAN, "std": STD}, "classes": CLASSES,
             "parameters": parameters}
    (directory / "model.json").write_text(json.dumps(model, indent=2))
