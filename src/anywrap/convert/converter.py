"""Whole trees of arrays to another library: what the conversion wrappers hold.

A :class:`Converter` is bound to one target library, device and
writability. It walks a tree with :func:`anywrap.tree.tree_map` and converts
each leaf by a function chosen once per leaf type, so nothing is resolved
again per step.

Example:
    >>> import numpy as np
    >>> tree = {"obs": np.zeros(3, dtype=np.float32), "mask": (np.ones(2, dtype=bool),)}
    >>> out = convert(tree, "numpy")
    >>> out["obs"] is tree["obs"], out["mask"][0].dtype
    (True, dtype('bool'))
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.convert.ladder import check_known, resolve_library, target_backend
from anywrap.tree import tree_map

__all__ = ["CONVERTER_CACHE_SIZE", "Converter", "convert", "converter"]


def _identity(x: Any) -> Any:
    return x


def _writable(x: Any) -> Any:
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        return x.copy()
    return x


def _is_array(x: Any) -> bool:
    return hasattr(x, "__dlpack__") or (hasattr(x, "shape") and hasattr(x, "dtype"))


class Converter:
    """:func:`convert` for one target, device and writability, built once.

    ``accept`` (library names) refuses arrays of any other library, with an
    error naming ``who``: a wrapper takes its user's inputs only in the
    libraries it hands out, or as host values.

    Leaves: arrays of a known library are converted; Python numbers become 0-d
    arrays (as in Gymnasium's ``array_conversion``); NumPy object arrays
    (Gymnasium's ``final_obs`` layout) are converted element by element;
    ``None``, strings and other objects pass through. Branches (dicts and
    other mappings, lists, tuples, NamedTuples) are rebuilt with their types.
    """

    __slots__ = ("_leaves", "_target", "accept", "device", "to", "who", "writable")

    def __init__(
        self,
        to: str,
        device: Any = None,
        writable: bool = False,
        who: str = "",
        accept: frozenset[str] | None = None,
    ) -> None:
        self.to = to
        self.device = device
        self.writable = writable and to == "numpy"
        self.who = who
        self.accept = accept
        self._target = target_backend(to, who or "convert")
        if device is not None and self._target.check_device is not None:
            try:
                self._target.check_device(device)
            except ValueError as e:
                raise ValueError(f"{who or 'convert'}: {e}") from None
        self._leaves: dict[type, Callable[[Any], Any]] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.to, self.device, self.writable, self.who, self.accept))

    def __call__(self, tree: Any) -> Any:
        fn = self._leaves.get(type(tree))
        if fn is not None:  # a leaf of a known type (an observation): no tree walk
            return fn(tree)
        return tree_map(self._leaf, tree)

    def _leaf(self, v: Any) -> Any:
        fn = self._leaves.get(type(v))
        if fn is None:
            fn = self._classify(v)
        return fn(v)

    def _classify(self, v: Any) -> Callable[[Any], Any]:
        """The conversion of leaves of ``v``'s type (cached, except for unknown objects)."""
        tp = type(v)
        fn: Callable[[Any], Any]
        if v is None or isinstance(v, (str, bytes)):
            fn = _identity
        elif isinstance(v, numbers.Number) and not isinstance(v, np.generic):
            fn = self._number
        elif isinstance(v, np.ndarray):
            array = self._array_leaf()

            def fn(x: np.ndarray) -> Any:
                if x.dtype.kind == "O":  # Gymnasium's final_obs: element by element
                    out = np.empty(x.shape, dtype=object)
                    for i, item in np.ndenumerate(x):
                        out[i] = self(item)
                    return out
                return array(x)

        elif not _is_array(v):
            return _identity  # not cached: any object may pass through
        else:
            b = check_known(v, self.who)  # raises for an unknown array type
            if self.accept is not None and b.name not in self.accept:
                raise TypeError(  # not cached: the next leaf of this type is refused too
                    f"{self.who}: expected arrays of {' or '.join(sorted(self.accept))} "
                    f"(or Python numbers), got {axp.describe(v)}"
                )
            fn = self._array_leaf()
        self._leaves[tp] = fn
        return fn

    def _array_leaf(self) -> Callable[[Any], Any]:
        target, device = self._target, self.device
        if device is not None and self.to == "numpy" and str(device) == "cpu":
            device = None  # where NumPy arrays are anyway
        same = target.array_types

        def leaf(x: Any) -> Any:
            if isinstance(x, same) and not isinstance(x, np.generic):
                return x if device is None else target.move(x, device)
            return target.import_array(x, device)

        return (lambda x: _writable(leaf(x))) if self.writable else leaf

    def _number(self, v: Any) -> Any:
        return self._leaf(np.asarray(v))  # as Gymnasium: Python numbers become 0-d arrays


CONVERTER_CACHE_SIZE = 64
"""How many converters :func:`convert` keeps (one per target, device,
writability and caller); a program holds a handful, so the cache only stops
an unusual one from growing without bound."""

_CONVERTER_CACHE: dict[tuple[Any, ...], Converter] = {}


def converter(
    to: str | ModuleType, device: Any = None, *, writable: bool = False, who: str = "convert"
) -> Converter:
    """A reusable :func:`convert` with its arguments bound (what the wrappers hold).

    Example:
        >>> to_np = converter("numpy")
        >>> to_np({"x": 1.0})["x"]
        array(1.)
    """
    return Converter(resolve_library(to), device, writable, who)


def convert(
    tree: Any,
    to: str | ModuleType,
    device: Any = None,
    *,
    writable: bool = False,
    who: str = "convert",
) -> Any:
    """Convert every array in a nested structure to the library ``to``.

    Dicts (and other mappings), lists, tuples and namedtuples are rebuilt with
    their own types; NumPy object arrays (Gymnasium's ``final_obs``) are
    converted element by element; Python and NumPy numbers become 0-d arrays,
    as in Gymnasium's ``array_conversion``; ``None``, strings and other
    non-array objects pass through. Code that converts every step should hold
    a :func:`converter` instead.

    Args:
        tree: The structure to convert.
        to: The target library (name or module).
        device: Where the arrays must live; ``None`` keeps each one's device.
        writable: For a NumPy target, copy the read-only leaves (views of JAX
            or TensorFlow arrays) so that code that writes in place works.
        who: The caller's name, used in error messages.

    Example:
        >>> import collections
        >>> P = collections.namedtuple("P", "x y")
        >>> out = convert({"p": P(np.zeros(1), 2.0), "name": "cart"}, np)
        >>> type(out["p"]).__name__, out["p"].y, out["name"]
        ('P', array(2.), 'cart')
    """
    name = resolve_library(to)
    key = (name, device, writable, who)
    try:
        conv = _CONVERTER_CACHE.get(key)
    except TypeError:  # an unhashable device
        return Converter(name, device, writable, who)(tree)
    if conv is None:
        if len(_CONVERTER_CACHE) >= CONVERTER_CACHE_SIZE:
            _CONVERTER_CACHE.clear()
        conv = _CONVERTER_CACHE[key] = Converter(name, device, writable, who)
    return conv(tree)
