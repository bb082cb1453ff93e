"""Zero-copy conversion between NumPy, JAX, PyTorch, CuPy, TensorFlow and any
Array API library, and the single-env wrappers built on it.

Per array (:func:`to_library`): an array of the target library is returned as
it is; otherwise DLPack shares the buffer, on its device, wherever the source
allows, and one copy by the source library is made where it does not (a
read-only NumPy array into TensorFlow, a tensor that requires grad, a
non-compact stride into JAX, a device array into NumPy). ``device=`` then
moves the result once. dtypes are kept, except that JAX without
``jax_enable_x64`` narrows 64-bit values to 32 bits (with a warning, once per
dtype). Each library's side of a conversion is a hook of its backend
(:func:`anywrap.xp.register_backend`), so a library registered from outside
converts like the others. The per-step path (:func:`converter`, which the
wrappers hold) resolves each leaf type once.

Read-only views, small host arrays into JAX and TensorFlow on GPU: see the
guide "Converting between libraries" (``docs/guide/conversion.md``).

Example:
    >>> import numpy as np
    >>> from anywrap.convert import convert
    >>> tree = {"obs": np.zeros(3, dtype=np.float32), "mask": (np.ones(2, dtype=bool),)}
    >>> out = convert(tree, "numpy")
    >>> out["obs"] is tree["obs"], out["mask"][0].dtype
    (True, dtype('bool'))
"""

from __future__ import annotations

from anywrap.convert.converter import (
    Converter,
    convert,
    converter,
    library_of,
    resolve_library,
    to_library,
)
from anywrap.convert.wrappers import (
    ArrayConversion,
    JaxToNumpy,
    JaxToTorch,
    NumpyToTorch,
    ToJax,
    ToNumpy,
    ToTensorFlow,
    ToTorch,
)

__all__ = [
    "ArrayConversion",
    "Converter",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "convert",
    "converter",
    "library_of",
    "resolve_library",
    "to_library",
]
