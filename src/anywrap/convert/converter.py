"""Whole trees of arrays to another library: a :class:`Converter` (what the conversion
wrappers hold) converts each leaf by a function chosen once per leaf type."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from anywrap import xp
from anywrap.tree import tree_map


def resolve_library(lib: str | ModuleType) -> str:
    """The canonical name of a library given as a name, an alias or a module
    (``"np"``, ``"jnp"``, ``"tf"``, ``torch``, ``array_api_compat.torch``, or the
    import name of any Array API library with ``from_dlpack``).

    Example:
        >>> import numpy as np
        >>> resolve_library(np), resolve_library("jnp"), resolve_library("array_api_strict")
        ('numpy', 'jax', 'array_api_strict')
    """
    if not isinstance(lib, (str, ModuleType)):  # a number would read as NumPy's scalar
        raise TypeError(
            f"expected a library as a name (e.g. 'torch', 'jax') or a module, got "
            f"{type(lib).__name__} {lib!r}"
        )
    return xp.library_name(lib)


def library_of(x: Any) -> str:
    """The canonical library name of the array ``x``.

    Example:
        >>> library_of(np.float32(1.0)), library_of(np.zeros(2))
        ('numpy', 'numpy')
    """
    return check_known(x, "library_of")


def check_known(x: Any, who: str) -> str:
    """The library of ``x``, or an error naming ``who`` and the registration that fixes it."""
    try:
        xp.namespace(x)
        return xp.library_name(x)
    except xp.UnknownArrayTypeError:
        tp = type(x)
        raise xp.UnknownArrayTypeError(
            f"{who}: cannot convert {xp.describe(x)}: anywrap does not know the array type "
            f"{tp.__module__}.{tp.__qualname__}; it is not an array of a known library. "
            f"Register it with `anywrap.xp.register_namespace({tp.__qualname__}, <namespace>)` "
            "(or anywrap.xp.register_backend for its conversions); the type must also "
            "implement __dlpack__ to be converted."
        ) from None


def to_library(x: Any, to: str | ModuleType, device: Any = None, *, who: str = "to_library") -> Any:
    """Convert one array to the library ``to``, zero-copy where DLPack allows (see
    :mod:`anywrap.convert`); an array of ``to`` is returned as it is unless ``device`` moves it.

    Raises:
        anywrap.xp.UnknownArrayTypeError: an array type anywrap does not know.
        ValueError: ``to`` is not a known array library.

    Example:
        >>> to_library(np.float32(2.5), "numpy")
        array(2.5, dtype=float32)
    """
    target = named_library(to, who)
    if check_known(x, who) == target and not isinstance(x, np.generic):
        return x if device is None else xp.to_library(x, target, device)
    return xp.to_library(_exportable(x, target, who), target, device)


def named_library(to: str | ModuleType, who: str) -> str:
    """``to``'s library name, or its error with the caller's name ``who`` in front."""
    try:
        return resolve_library(to)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{who}: {e}") from None


# Not "V": ml_dtypes' bfloat16 and float8 are NumPy "V" dtypes that do convert.
_NO_ARRAY_KINDS = {"U": "strings", "S": "bytes", "M": "datetimes", "m": "timedeltas"}


def _exportable(x: Any, target: str, who: str) -> Any:
    """``x`` ready for a DLPack export (NumPy strings, dates and the like refused)."""
    if isinstance(x, np.generic):
        x = np.asarray(x)
    if isinstance(x, np.ndarray):
        kind = _NO_ARRAY_KINDS.get(x.dtype.kind)
        if kind is not None:
            raise TypeError(
                f"{who}: cannot convert {xp.describe(x)} to {target}: NumPy {kind} have no "
                f"{target} dtype (convert them to numbers first, or leave them out)"
            )
        if not x.dtype.isnative:  # a big-endian array (read from a file, say)
            x = x.astype(x.dtype.newbyteorder("="))
    elif getattr(x, "requires_grad", False) and hasattr(x, "detach"):
        x = x.detach()
    return x


def _identity(x: Any) -> Any:
    return x


def _writable(x: Any) -> Any:
    return x.copy() if isinstance(x, np.ndarray) and not x.flags.writeable else x


class Converter:
    """:func:`convert` for one target, device and writability, built once.

    ``accept`` (library names) refuses arrays of other libraries, naming ``who``: a wrapper
    takes its user's inputs only in the libraries it hands out, or as host values.
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
        self.to, self.device, self.who, self.accept = to, device, who, accept
        self.writable = writable and to == "numpy"
        self._target = named_library(to, who or "convert")
        if device is not None:  # a device the target cannot use is refused now
            try:
                xp.to_library(np.zeros(0, np.float32), self._target, device)
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
        return (self._leaves.get(type(v)) or self._classify(v))(v)

    def _classify(self, v: Any) -> Callable[[Any], Any]:
        fn: Callable[[Any], Any]
        if v is None or isinstance(v, (str, bytes)):
            fn = _identity
        elif isinstance(v, numbers.Number) and not isinstance(v, np.generic):
            fn = self._number
        elif isinstance(v, np.ndarray):
            array = self._array_leaf(same=self._target == "numpy")

            def fn(x: np.ndarray) -> Any:
                if x.dtype.kind == "O":  # Gymnasium's final_obs: element by element
                    out = np.empty(x.shape, dtype=object)
                    for i, item in np.ndenumerate(x):
                        out[i] = self(item)
                    return out
                return array(x)

        elif not (hasattr(v, "__dlpack__") or (hasattr(v, "shape") and hasattr(v, "dtype"))):
            return _identity  # not cached: any object may pass through
        else:
            lib = check_known(v, self.who)  # raises for an unknown array type
            if self.accept is not None and lib not in self.accept:
                raise TypeError(  # not cached: the next leaf of this type is refused too
                    f"{self.who}: expected arrays of {' or '.join(sorted(self.accept))} "
                    f"(or Python numbers), got {xp.describe(v)}"
                )
            fn = self._array_leaf(same=lib == self._target and not isinstance(v, np.generic))
        self._leaves[type(v)] = fn
        return fn

    def _array_leaf(self, same: bool) -> Callable[[Any], Any]:
        target, device, who = self._target, self.device, self.who or "convert"
        if device is not None and self.to == "numpy" and str(device) == "cpu":
            device = None  # where NumPy arrays are anyway

        def leaf(x: Any) -> Any:
            if same:
                return x if device is None else xp.to_library(x, target, device)
            return xp.to_library(_exportable(x, target, who), target, device)

        return (lambda x: _writable(leaf(x))) if self.writable else leaf

    def _number(self, v: Any) -> Any:
        return self._leaf(np.asarray(v))  # as Gymnasium: Python numbers become 0-d arrays


CONVERTER_CACHE_SIZE = 64
"""How many converters :func:`convert` keeps (one per target, device, writability, caller)."""


_cached = functools.lru_cache(maxsize=CONVERTER_CACHE_SIZE)(Converter)


def converter(
    to: str | ModuleType, device: Any = None, *, writable: bool = False, who: str = "convert"
) -> Converter:
    """A reusable :func:`convert` with its arguments bound (what the wrappers hold).

    Example:
        >>> converter("numpy")({"x": 1.0})["x"]
        array(1.)
    """
    return Converter(named_library(to, who), device, writable, who)


def convert(
    tree: Any,
    to: str | ModuleType,
    device: Any = None,
    *,
    writable: bool = False,
    who: str = "convert",
) -> Any:
    """Convert every array in a nested structure to the library ``to``.

    Mappings, lists, tuples and namedtuples are rebuilt with their own types; NumPy object
    arrays (Gymnasium's ``final_obs``) are converted element by element; numbers become 0-d
    arrays, as in Gymnasium's ``array_conversion``; other objects pass through. Code that
    converts every step should hold a :func:`converter` instead.

    Args:
        to: The target library (name or module).
        device: Where the arrays must live; ``None`` keeps each one's device.
        writable: For a NumPy target, copy read-only leaves (views of JAX or TensorFlow arrays).
        who: The caller's name, used in error messages.

    Example:
        >>> import collections
        >>> P = collections.namedtuple("P", "x y")
        >>> out = convert({"p": P(np.zeros(1), 2.0), "name": "cart"}, np)
        >>> type(out["p"]).__name__, out["p"].y, out["name"]
        ('P', array(2.), 'cart')
    """
    name = named_library(to, who)
    try:
        conv = _cached(name, device, writable, who)
    except TypeError:  # an unhashable device
        conv = Converter(name, device, writable, who)
    return conv(tree)
