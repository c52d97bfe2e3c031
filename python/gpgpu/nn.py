"""gpgpu.nn: convolutional networks from NumPy arrays (the extension's gpgpu._gpgpu.nn, whose
docstring help(gpgpu.nn) shows)."""

from ._gpgpu import nn as _nn
from ._gpgpu.nn import *  # noqa: F401,F403  (the extension's classes and functions)

__doc__ = _nn.__doc__
__all__ = [name for name in dir(_nn) if not name.startswith("_")]
