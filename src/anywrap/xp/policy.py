"""Device and dtype policy: which float a backend holds, where arrays live, and
how they are described in error messages.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.wide_float(np), xp.resolve_dtype(np, "float32")
    (<class 'numpy.float64'>, <class 'numpy.float32'>)
    >>> xp.describe(np.zeros((2, 3), dtype=np.float32))
    'numpy.ndarray(shape=(2, 3), dtype=float32, device=cpu)'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anywrap.xp.registry import backend_of_namespace, device, library_name

__all__ = ["describe", "has_float64", "is_host", "resolve_dtype", "same_device", "wide_float"]

_HOST_TYPES: tuple[type, ...] = (np.ndarray, np.generic, float, int, bool)


def has_float64(xp: Any, dev: Any = None) -> bool:
    """Whether the namespace ``xp`` can hold float64 on ``dev``
    (False for JAX without x64, or Apple's MPS)."""
    if xp is np:
        return True
    return backend_of_namespace(xp).float64_on(xp, dev)


def wide_float(xp: Any, dev: Any = None) -> Any:
    """float64 where ``xp`` has it on ``dev``, else float32."""
    return xp.float64 if has_float64(xp, dev) else xp.float32


def resolve_dtype(xp: Any, name: Any, device: Any = None) -> Any:
    """``xp``'s dtype called ``name``; 64-bit types fall back to 32 bits where absent."""
    name = np.dtype(name).name if not isinstance(name, str) else name
    if name in ("float64", "int64", "uint64") and not has_float64(xp, device):
        name = name.replace("64", "32")  # JAX without x64 holds none of them
    return getattr(xp, name)


def same_device(a: Any, b: Any) -> bool:
    """Whether two devices (as :func:`~anywrap.xp.device` returns them) are the same."""
    return a == b or str(a) == str(b)


def is_host(x: Any) -> bool:
    """True for NumPy arrays and Python scalars: values that are already on the host.

    Shells may branch on the values of host arrays (as Gymnasium does) without
    a synchronisation; never on those of any other array.
    """
    return isinstance(x, _HOST_TYPES)


def describe(x: Any) -> str:
    """A one-line description for error messages: library, type, shape, dtype, device."""
    tp = type(x)
    if isinstance(x, (float, int, bool)):
        return f"{tp.__name__} {x!r}"
    if x is None:
        return "None"
    name = f"{library_name(x)}.{tp.__qualname__}"
    shape = getattr(x, "shape", None)
    if shape is None:
        return name
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        shape = tuple(shape)
    dtype = getattr(x, "dtype", "?")
    dtype_name = getattr(dtype, "name", None) or str(dtype).rpartition(".")[2]
    try:
        dev = device(x)
    except Exception:  # describing must never fail
        dev = "?"
    return f"{name}(shape={shape}, dtype={dtype_name}, device={dev})"
