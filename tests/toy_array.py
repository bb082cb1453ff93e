"""ToyArray: a third-party array type the tests teach anywrap, and its namespace."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["TOY", "ToyArray"]


class ToyArray:
    """A minimal array type wrapping a NumPy array; deliberately not an ndarray.

    It refuses ``bool`` / ``float`` / ``int``, so a shell that branches on its
    values fails here instead of silently syncing.
    """

    __slots__ = ("_a",)
    __array_priority__ = 1000  # NumPy arrays defer to us in mixed arithmetic

    def __init__(self, a: Any) -> None:
        self._a = np.asarray(a)

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    device = property(lambda self: "cpu")

    def __array__(self, dtype=None, copy=None):  # host copies (checkpoints) only
        return np.asarray(self._a, dtype=dtype)

    def __getitem__(self, key: Any) -> ToyArray:
        return ToyArray(self._a[_unwrap(key)])

    def __bool__(self) -> bool:
        raise TypeError("ToyArray has no host truth value (would be a sync)")

    __float__ = __int__ = __index__ = __bool__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToyArray({self._a!r})"


def _unwrap(x: Any) -> Any:
    if isinstance(x, ToyArray):
        return x._a
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    return x


def _wrap(x: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic)):
        return ToyArray(x)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def _binary(name: str):
    op = getattr(np.ndarray, name)
    return lambda self, other: _wrap(op(self._a, _unwrap(other)))


for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__pow__",
    "__rpow__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__eq__",
    "__ne__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__floordiv__",
    "__mod__",
):
    setattr(ToyArray, _name, _binary(_name))
ToyArray.__neg__ = lambda self: ToyArray(-self._a)  # type: ignore[attr-defined]
ToyArray.__invert__ = lambda self: ToyArray(~self._a)  # type: ignore[attr-defined]
ToyArray.__abs__ = lambda self: ToyArray(abs(self._a))  # type: ignore[attr-defined]
ToyArray.__hash__ = None  # type: ignore[assignment]


class ToyNamespace(ModuleType):
    """A module-like Array API namespace for ToyArray: NumPy's functions, wrapped."""

    def __getattr__(self, name: str) -> Any:
        target = getattr(np, name)
        if not callable(target) or isinstance(target, type):
            return target  # dtypes, constants

        def fn(*args: Any, **kwargs: Any) -> Any:
            return _wrap(target(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

        return fn


TOY = ToyNamespace("toy_array_namespace")
