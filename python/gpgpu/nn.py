"""gpgpu.nn: convolutional networks on the GPU (or the CPU), from NumPy arrays.

    import numpy as np, gpgpu.nn as nn
    images, labels = nn.load_fashion_mnist("train", limit=2000)      # uint8 (N, 1, 28, 28)
    x = images.astype(np.float32) / 255
    model = nn.Sequential((1, 28, 28), [nn.Conv2D(8, kernel=5, padding=2), nn.ReLU(),
                                        nn.MaxPool2D(), nn.Flatten(), nn.Dense(10)], seed=1)
    model.train(x, labels, epochs=1, batch=32, optimizer=nn.Adam(2e-3))
    print(model.classify(x[:5]), labels[:5])
    model.save("model.npz")

Everything here is the extension's submodule gpgpu._gpgpu.nn: help(gpgpu.nn.Sequential) and
the other classes document themselves; docs/python.md has the guide.
"""

from ._gpgpu import nn as _nn
from ._gpgpu.nn import *  # noqa: F401,F403  (the extension's classes and functions)

__all__ = [name for name in dir(_nn) if not name.startswith("_")]
