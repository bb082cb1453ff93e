"""Zero-copy conversion between NumPy, JAX, PyTorch, CuPy, TensorFlow and any
Array API library, and the single-env wrappers built on it.

Arrays are shared through DLPack where the source allows it, else copied once; dtypes
are kept (JAX without x64 narrows 64-bit values, with a warning). See the guide
"Converting between libraries" (``docs/guide/conversion.md``).

Example:
    >>> import numpy as np
    >>> from anywrap.convert import convert
    >>> tree = {"obs": np.zeros(3, dtype=np.float32), "mask": (np.ones(2, dtype=bool),)}
    >>> out = convert(tree, "numpy")
    >>> out["obs"] is tree["obs"], out["mask"][0].dtype
    (True, dtype('bool'))
"""

from __future__ import annotations

from . import wrappers
from .converter import Converter, convert, converter, library_of, resolve_library, to_library
from .wrappers import *  # noqa: F403  (ToTorch, JaxToNumpy, ...)

__all__ = [
    *wrappers.__all__,
    "Converter",
    "convert",
    "converter",
    "library_of",
    "resolve_library",
    "to_library",
]
