"""DtypeObservation's transform: an observation cast to a dtype (by its NumPy name).

A host scalar becomes a NumPy scalar, as Gymnasium's ``dtype.type(obs)`` gives.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.dtype_observation import cast
    >>> cast(np.array([1, 2]), "float32"), cast(3, "float64")
    (array([1., 2.], dtype=float32), np.float64(3.0))
"""

from __future__ import annotations

from anywrap.xp import Array, device, is_host, namespace, resolve_dtype

__all__ = ["cast"]


def cast(x: Array, dtype: str) -> Array:
    """``x`` in the dtype named ``dtype`` (no copy where it has it already)."""
    xp = namespace(x)
    target = resolve_dtype(xp, dtype, device(x))
    if is_host(x) and getattr(x, "ndim", 0) == 0:
        return xp.asarray(x, dtype=target)[()]
    return x if x.dtype == target else xp.astype(x, target)
