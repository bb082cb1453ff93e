"""One array to another library: the conversion ladder.

For each array, in order:

1. Already the target library: returned as it is (moved only if ``device=`` asks).
2. DLPack: zero-copy whenever source and target can share the buffer, which
   on the host is every pair among NumPy, JAX, PyTorch and TensorFlow. The
   device is kept: a CUDA tensor becomes a CUDA JAX array.
3. The source cannot be shared as it is (a read-only NumPy array into
   TensorFlow, a non-compact stride into JAX, a device array into NumPy): one
   copy, made by the source library.

Each library's side of this (its DLPack import, host view, device move) is a
hook of its :class:`~anywrap.xp.Backend`; nothing here names a library.

Example:
    >>> import numpy as np
    >>> a = np.arange(3)
    >>> to_library(a, "numpy") is a
    True
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from anywrap import xp as axp

__all__ = ["check_known", "library_of", "resolve_library", "target_backend", "to_library"]

Array = Any


def resolve_library(lib: str | ModuleType) -> str:
    """The canonical name of a library given as a name or a module.

    Accepts ``"numpy"``, ``"np"``, ``"jax"``, ``"torch"``, ``"tf"``,
    ``"tensorflow"``, the modules themselves (``numpy``, ``jax.numpy``,
    ``torch``, their ``array_api_compat`` wrappers), or the import name of any
    Array API library with ``from_dlpack``.

    Example:
        >>> import numpy as np
        >>> resolve_library(np), resolve_library("jnp"), resolve_library("array_api_strict")
        ('numpy', 'jax', 'array_api_strict')
    """
    return axp.resolve_library(lib)


_LIBRARY_OF_TYPE: dict[type, str] = {}


def library_of(x: Any) -> str:
    """The canonical library name of the array ``x``.

    Example:
        >>> import numpy as np
        >>> library_of(np.float32(1.0)), library_of(np.zeros(2))
        ('numpy', 'numpy')
    """
    tp = type(x)
    lib = _LIBRARY_OF_TYPE.get(tp)
    if lib is None:  # the library is a property of the type: resolve it once
        lib = _LIBRARY_OF_TYPE[tp] = axp.library_name(x)
    return lib


def _unknown(x: Any, who: str) -> axp.UnknownArrayTypeError:
    tp = type(x)
    return axp.UnknownArrayTypeError(
        f"{who}: cannot convert {axp.describe(x)}: anywrap does not know the array type "
        f"{tp.__module__}.{tp.__qualname__}. Register it with "
        f"`anywrap.xp.register_namespace({tp.__qualname__}, lambda x: <namespace module>)` "
        "(or anywrap.xp.register_backend for its conversions); the type must also "
        "implement __dlpack__ to be converted."
    )


def check_known(x: Any, who: str) -> axp.Backend:
    """The backend of ``x``, or an error naming ``who`` and the registration that fixes it."""
    try:
        b = axp.backend_of(x)
    except axp.UnknownArrayTypeError:
        raise _unknown(x, who) from None
    if b.from_array is None and b.to_numpy is None and not hasattr(x, "__dlpack__"):
        raise _unknown(x, who)
    return b


def target_backend(to: str | ModuleType, who: str) -> axp.Backend:
    """The backend of the target library ``to``, or an error naming ``who``."""
    try:
        return axp.backend_named(to)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{who}: {e}") from None


def to_library(
    x: Array, to: str | ModuleType, device: Any = None, *, who: str = "to_library"
) -> Array:
    """Convert one array to the library ``to`` (zero-copy where possible).

    Args:
        x: An array of any known library (or a NumPy scalar).
        to: The target library, as a name or a module (see :func:`resolve_library`).
        device: Where the result must live; ``None`` keeps the source's device.
        who: The caller's name, used in error messages.

    Raises:
        anywrap.xp.UnknownArrayTypeError: ``x`` is of an array type anywrap does
            not know; the message shows the registration that would add it.
        ValueError: ``to`` is not a known array library.

    Example:
        >>> import numpy as np
        >>> to_library(np.float32(2.5), "numpy")
        array(2.5, dtype=float32)
    """
    target = target_backend(to, who)
    source = check_known(x, who)
    if source is target and not isinstance(x, np.generic):  # NumPy scalars become 0-d arrays
        return x if device is None else target.move(x, device)
    return target.import_array(x, device)
