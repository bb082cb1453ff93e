"""Standard operations with a short cut for NumPy values on the host.

Each function here is the Array API operation of the same name, and each
short cut computes the same formula: it only skips NumPy's Python-level
wrappers (``np.clip``, ``np.where`` on scalars, ``np.astype``), which cost
more than the arithmetic on a single env's small arrays. The parity tests
run both the short cuts (NumPy) and the generic path (array-api-strict, a
NumPy underneath) against Gymnasium.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.clip(np.array([-3.0, 0.5, np.nan]), -1.0, 1.0)
    array([-1. ,  0.5,  nan])
    >>> xp.where(np.True_, np.float32(2.0), 0.0)
    np.float32(2.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anywrap.xp.registry import _FAST_HOST, namespace

__all__ = ["all_true", "astype", "clip", "flat", "is_floating", "result_dtype", "where"]

_PY_SCALARS = (float, int, bool)
_NP_SCALARS = frozenset({np.float64, np.float32, np.int64, np.int32, np.bool_})
_scalar_types: dict[Any, Any] = {}


def astype(x: Any, dtype: Any) -> Any:
    """``xp.astype(x, dtype)``; a NumPy scalar is cast by calling its type
    (its ``astype`` method is several times slower). Never copies an array
    that already has ``dtype`` (anywrap never writes into arrays)."""
    tp = type(x)
    if tp is np.ndarray:
        return x if x.dtype == dtype else x.astype(dtype)
    if tp in _NP_SCALARS:
        if x.dtype == dtype:
            return x
        cast = _scalar_types.get(dtype)
        if cast is None:
            cast = _scalar_types[dtype] = np.dtype(dtype).type
        return cast(x)
    if getattr(x, "dtype", None) == dtype:
        return x
    return namespace(x).astype(x, dtype)


def all_true(x: Any, axis: int | None = None) -> Any:
    """``xp.all(x, axis=axis)``, with NumPy's method called directly."""
    if type(x) in _FAST_HOST and type(x) not in _PY_SCALARS:
        return x.all(axis=axis)
    return namespace(x).all(x, axis=axis)


def flat(x: Any) -> Any:
    """``x`` as a 1-D array (itself when it already is)."""
    if getattr(x, "ndim", None) == 1:
        return x
    if type(x) in _FAST_HOST and type(x) not in _PY_SCALARS:
        return x.reshape(-1)  # the method: np.reshape's Python wrapper costs more
    if type(x) in _PY_SCALARS:
        return np.reshape(x, (-1,))
    return namespace(x).reshape(x, (-1,))


_result_types: dict[tuple[int, Any, Any], Any] = {}


def result_dtype(xp: Any, a: Any, b: Any) -> Any:
    """``xp.result_type(a, b)`` of two dtypes, cached (NumPy's is slow on the host)."""
    key = (id(xp), a, b)
    hit = _result_types.get(key)
    if hit is None:
        hit = _result_types[key] = xp.result_type(a, b)
    return hit


_float_dtypes: dict[tuple[int, Any], bool] = {}


def is_floating(xp: Any, dtype: Any) -> bool:
    """``xp.isdtype(dtype, "real floating")``, cached (NumPy's is slow on the host)."""
    key = (id(xp), dtype)
    hit = _float_dtypes.get(key)
    if hit is None:
        hit = _float_dtypes[key] = bool(xp.isdtype(dtype, "real floating"))
    return hit


def clip(x: Any, low: Any, high: Any) -> Any:
    """``xp.clip(x, low, high)``; NumPy arrays take ``minimum(maximum(x, low), high)``,
    which is ``np.clip``'s own definition (NaN propagates), without its wrapper."""
    if type(x) is np.ndarray:
        return np.minimum(np.maximum(x, low), high)
    return namespace(x).clip(x, low, high)


def where(condition: Any, x1: Any, x2: Any) -> Any:
    """``xp.where(condition, x1, x2)``; NumPy scalars are selected without NumPy.

    A single env's statistics are NumPy scalars, on which ``np.where`` (which
    returns a 0-d array, and so slows every later operation) costs 10x a
    Python selection of the same value. Every other case is the namespace's
    own ``where``.
    """
    if type(condition) in (np.bool_, bool) or (
        type(condition) is np.ndarray and condition.ndim == 0
    ):
        if type(x1) is np.ndarray and x1.ndim == 0:
            x1 = x1[()]
        if type(x2) is np.ndarray and x2.ndim == 0:
            x2 = x2[()]
        t1, t2 = type(x1), type(x2)
        if t1 in _NP_SCALARS and (t2 is t1 or t2 in _PY_SCALARS):
            return x1 if condition else t1(x2)
        if t2 in _NP_SCALARS and t1 in _PY_SCALARS:
            return t2(x1) if condition else x2
    return namespace(condition, x1, x2).where(condition, x1, x2)
