"""The xp layer: the one place that knows which array libraries exist.

Everything above this layer writes ``xp = namespace(x)`` and then uses the
Python Array API standard's names (``xp.where``, ``xp.sqrt``, ``xp.mean``).

* :func:`namespace` finds the namespace of an array: the registry first (so a
  user's registration wins), then array-api-compat. NumPy arrays and Python
  scalars map to the ``numpy`` module itself, which follows the standard since
  NumPy 2.0 and is the fastest route on the host.
* :func:`register_namespace` plugs in an array type that array-api-compat does
  not know (TensorFlow is registered this way, from outside the core).
* :func:`jit` is a :func:`functools.singledispatch` function: a backend that can
  compile a pure function registers itself (JAX does, with ``jax.jit``).
* Device and dtype helpers: :func:`device`, :func:`has_float64`,
  :func:`wide_float`, :func:`describe`.

Backends that need an import (JAX, PyTorch) are set up lazily, the first time
one of their arrays is seen, so ``import anywrap`` imports neither.

Example:
    >>> import numpy as np
    >>> from anywrap import xp as axp
    >>> axp.namespace(np.zeros(3)) is np
    True
    >>> axp.describe(np.zeros((2, 3), dtype=np.float32))
    'numpy.ndarray(shape=(2, 3), dtype=float32, device=cpu)'
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import array_api_compat
import numpy as np

__all__ = [
    "Array",
    "Compiled",
    "UnknownArrayTypeError",
    "astype",
    "clip",
    "count_true",
    "cumulative_sum",
    "describe",
    "device",
    "flat",
    "has_float64",
    "is_floating",
    "is_host",
    "jit",
    "last_true_indices",
    "library_name",
    "namespace",
    "register_namespace",
    "resolve_dtype",
    "result_dtype",
    "same_device",
    "sum_along",
    "sum_rows",
    "to_numpy",
    "where",
    "wide_float",
]

Array = Any
"""Any array of a supported library (the Array API has no common base class)."""

_HOST_TYPES: tuple[type, ...] = (np.ndarray, np.generic, float, int, bool)
_FAST_HOST = frozenset(
    {np.ndarray, float, int, bool, np.bool_, np.float64, np.float32, np.int64, np.int32}
)

# Modules that teach anywrap about a library, imported the first time one of
# that library's arrays is seen. Keyed by the top-level module of the type.
_PLUGINS: dict[str, str] = {
    "jax": "anywrap.xp._jax",
    "jaxlib": "anywrap.xp._jax",
    "torch": "anywrap.xp._torch",
    # Registered from outside the core, through register_namespace only.
    "tensorflow": "anywrap.backends.tensorflow",
}
_loaded_plugins: set[str] = set()

_registry: dict[type, Callable[[Any], ModuleType]] = {}
_cache: dict[type, ModuleType] = {}


class UnknownArrayTypeError(TypeError):
    """Raised for an array type that neither array-api-compat nor the registry knows."""


def register_namespace(array_type: type, factory: Callable[[Any], ModuleType]) -> None:
    """Teach anywrap the Array API namespace of ``array_type`` (and its subclasses).

    ``factory(x)`` returns a module-like object with the standard's functions.
    A registration takes precedence over array-api-compat.

    Example:
        >>> import numpy as np
        >>> from anywrap import xp as axp
        >>> class Tagged(np.ndarray): ...
        >>> axp.register_namespace(Tagged, lambda x: np)
        >>> axp.namespace(np.zeros(2).view(Tagged)) is np
        True
    """
    _registry[array_type] = factory
    _cache.clear()


def _load_plugin(tp: type) -> None:
    top = tp.__module__.split(".", 1)[0]
    plugin = _PLUGINS.get(top)
    if plugin is not None and plugin not in _loaded_plugins:
        _loaded_plugins.add(plugin)
        importlib.import_module(plugin)


def _lookup(tp: type, x: Any) -> ModuleType:
    _load_plugin(tp)
    for base in tp.__mro__:
        factory = _registry.get(base)
        if factory is not None:
            return factory(x)
    if issubclass(tp, _HOST_TYPES):
        return np
    try:
        return array_api_compat.array_namespace(x)
    except TypeError:
        pass
    raise UnknownArrayTypeError(
        f"anywrap does not know the array type {tp.__module__}.{tp.__qualname__}. "
        "Register its Array API namespace with "
        f"`anywrap.xp.register_namespace({tp.__qualname__}, lambda x: <namespace module>)`."
    )


def namespace(*arrays: Array) -> ModuleType:
    """Return the Array API namespace shared by ``arrays``.

    Python scalars and ``None`` do not vote when an array is present.

    Raises:
        UnknownArrayTypeError: for a type that is neither registered nor known
            to array-api-compat; the message shows the registration that fixes it.
        TypeError: when arrays of different libraries are mixed.
    """
    for x in arrays:  # the hot path on the host: only NumPy values and scalars
        if type(x) not in _FAST_HOST:
            break
    else:
        if arrays:
            return np
    found: ModuleType | None = None
    scalar = False
    for x in arrays:
        if x is None:
            continue
        if isinstance(x, (float, int, bool)):
            scalar = True
            continue
        tp = type(x)
        xp = _cache.get(tp)
        if xp is None:
            xp = _cache[tp] = _lookup(tp, x)
        if found is None:
            found = xp
        elif xp is not found:
            raise TypeError(
                f"arrays of different libraries are mixed: {found.__name__} and {xp.__name__}"
            )
    if found is None:
        if scalar:
            return np
        raise TypeError("namespace() needs at least one array")
    return found


_scalar_types: dict[Any, Any] = {}


def astype(x: Array, dtype: Any) -> Array:
    """``xp.astype(x, dtype)``, with NumPy's fastest route taken directly.

    (NumPy's ``astype`` function is written in Python, and a NumPy scalar's
    ``astype`` method is several times slower than calling its type.)
    """
    tp = type(x)
    if tp is np.ndarray:
        return x if x.dtype == dtype else x.astype(dtype)
    if tp in _FAST_HOST and tp not in (float, int, bool):  # a NumPy scalar
        if x.dtype == dtype:
            return x
        cast = _scalar_types.get(dtype)
        if cast is None:
            cast = _scalar_types[dtype] = np.dtype(dtype).type
        return cast(x)
    if getattr(x, "dtype", None) == dtype:  # arrays are never written to: no copy needed
        return x
    return namespace(x).astype(x, dtype)


def sum_along(x: Array, axis: int | None = None) -> Array:
    """``xp.sum(x, axis=axis)``; NumPy arrays skip ``np.sum``'s Python wrapper,
    and a backend may route it to a faster kernel (see :func:`_sum_along`)."""
    if type(x) is np.ndarray:
        return x.sum(axis=axis)
    return _sum_along(x, axis)


@functools.singledispatch
def _sum_along(x: Array, axis: int | None) -> Array:
    """``xp.sum``; JAX registers a faster route for sums over the rows."""
    return namespace(x).sum(x, axis=axis)


def sum_rows(x: Array, rows: Array) -> Array:
    """Sum over axis 0 of the rows of ``x`` where ``rows`` (broadcastable bool) is True.

    ``sum(where(rows, x, 0), axis=0)``; NumPy skips the unselected rows
    without building the zeroed copy.
    """
    if type(x) is np.ndarray and type(rows) is np.ndarray:
        return x.sum(axis=0, where=rows)
    return sum_along(where(rows, x, 0), axis=0)


def count_true(mask: Array) -> Any:
    """How many entries of the bool ``mask`` are True: a Python int for host
    values (exact and cheap), a 0-d int32 array for device ones."""
    if type(mask) is np.ndarray:
        return int(np.count_nonzero(mask))
    return _count_true(mask)


@functools.singledispatch
def _count_true(mask: Array) -> Array:
    xp = namespace(mask)
    return sum_along(astype(mask, xp.int32))


def all_true(x: Array, axis: int | None = None) -> Array:
    """``xp.all(x, axis=axis)``, with NumPy's method called directly (3x faster)."""
    if type(x) in _FAST_HOST and type(x) not in (float, int, bool):
        return x.all(axis=axis)
    return namespace(x).all(x, axis=axis)


def flat(x: Array) -> Array:
    """``x`` as a 1-D array (itself when it already is)."""
    if getattr(x, "ndim", None) == 1:
        return x
    if type(x) is np.ndarray or type(x) in _FAST_HOST:
        return np.reshape(x, (-1,))
    return namespace(x).reshape(x, (-1,))


_result_types: dict[tuple[int, Any, Any], Any] = {}


def result_dtype(xp: ModuleType, a: Any, b: Any) -> Any:
    """``xp.result_type(a, b)`` of two dtypes, cached (NumPy's is slow on the host)."""
    key = (id(xp), a, b)
    hit = _result_types.get(key)
    if hit is None:
        hit = _result_types[key] = xp.result_type(a, b)
    return hit


def clip(x: Array, low: Array, high: Array) -> Array:
    """``xp.clip(x, low, high)``; NumPy arrays take two ufuncs instead of ``np.clip``'s
    Python wrapper (same values, NaN included, at a third of the cost)."""
    if type(x) is np.ndarray:
        return np.minimum(np.maximum(x, low), high)
    return namespace(x).clip(x, low, high)


_NP_SCALARS = frozenset({np.float64, np.float32, np.int64, np.int32, np.bool_})


def where(condition: Array, x1: Any, x2: Any) -> Array:
    """``xp.where(condition, x1, x2)``; NumPy scalars are selected without NumPy.

    A single env's statistics are NumPy scalars, on which ``np.where`` (which
    returns a 0-d array, and so slows every later operation) costs 10x a
    Python selection. Every other case is the namespace's own ``where``.
    """
    if type(condition) in (np.bool_, bool) or (
        type(condition) is np.ndarray and condition.ndim == 0
    ):
        if type(x1) is np.ndarray and x1.ndim == 0:
            x1 = x1[()]
        if type(x2) is np.ndarray and x2.ndim == 0:
            x2 = x2[()]
        t1, t2 = type(x1), type(x2)
        if t1 in _NP_SCALARS and (t2 is t1 or t2 in (float, int, bool)):
            return x1 if condition else t1(x2)
        if t2 in _NP_SCALARS and t1 in (float, int, bool):
            return t2(x1) if condition else x2
    return namespace(condition, x1, x2).where(condition, x1, x2)


_float_dtypes: dict[Any, bool] = {}


def is_floating(xp: ModuleType, dtype: Any) -> bool:
    """``xp.isdtype(dtype, "real floating")``, cached (NumPy's is slow on the host)."""
    key = (id(xp), dtype)
    hit = _float_dtypes.get(key)
    if hit is None:
        hit = _float_dtypes[key] = bool(xp.isdtype(dtype, "real floating"))
    return hit


def library_name(x: Array) -> str:
    """A short name of ``x``'s library, e.g. ``'numpy'``, ``'jax'``, ``'torch'``."""
    return type(x).__module__.split(".", 1)[0].replace("jaxlib", "jax")


def device(x: Array) -> Any:
    """The device ``x`` lives on (``'cpu'`` for NumPy and Python scalars)."""
    if isinstance(x, _HOST_TYPES):
        return "cpu"
    _load_plugin(type(x))
    return _device(x)


@functools.singledispatch
def _device(x: Any) -> Any:
    return array_api_compat.device(x)


def to_numpy(x: Any) -> np.ndarray:
    """A host copy (or view) of any array, for checkpoints, reports and display only.

    Never on the step path: for a device array this is a host sync.
    """
    if isinstance(x, np.ndarray):
        return x
    _load_plugin(type(x))
    return _to_numpy(x)


@functools.singledispatch
def _to_numpy(x: Any) -> np.ndarray:
    return np.asarray(x)


def resolve_dtype(xp: ModuleType, name: Any, device: Any = None) -> Any:
    """``xp``'s dtype called ``name``; float64 falls back to float32 where absent."""
    name = np.dtype(name).name if not isinstance(name, str) else name
    if name in ("float64", "int64") and not has_float64(xp, device):
        name = name.replace("64", "32")  # JAX without x64 holds neither
    return getattr(xp, name)


def same_device(a: Any, b: Any) -> bool:
    """Whether two devices (as :func:`device` returns them) are the same."""
    return a == b or str(a) == str(b)


def is_host(x: Array) -> bool:
    """True for NumPy arrays and Python scalars: values that are already on the host.

    Shells may branch on the values of host arrays (as Gymnasium does) without
    a synchronisation; never on those of any other array.
    """
    return isinstance(x, _HOST_TYPES)


def describe(x: Any) -> str:
    """A one-line description for error messages: type, shape, dtype, device."""
    tp = type(x)
    name = f"{library_name(x)}.{tp.__qualname__}"
    if isinstance(x, (float, int, bool)):
        return f"{tp.__name__} {x!r}"
    shape = getattr(x, "shape", None)
    if shape is None:
        return name
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        shape = tuple(shape)
    dtype = getattr(x, "dtype", "?")
    dtype_name = getattr(dtype, "name", None) or str(dtype).replace("torch.", "")
    try:
        dev = device(x)
    except Exception:  # describing must never fail
        dev = "?"
    return f"{name}(shape={shape}, dtype={dtype_name}, device={dev})"


_float64_probes: dict[tuple[int, str], bool] = {}


def _probe_float64(xp: ModuleType, dev: Any) -> bool:
    key = (id(xp), str(dev))  # namespaces need not be hashable
    hit = _float64_probes.get(key)
    if hit is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                hit = bool(xp.zeros((), dtype=xp.float64, device=dev).dtype == xp.float64)
            except Exception:
                hit = False
        _float64_probes[key] = hit
    return hit


def has_float64(xp: ModuleType, dev: Any = None) -> bool:
    """Whether ``xp`` can hold float64 on ``dev`` (False for JAX without x64, or MPS)."""
    if xp is np:
        return True
    if xp.__name__.startswith("jax"):
        # x64 can be switched on at run time, so never cache this answer.
        import jax

        return bool(jax.config.read("jax_enable_x64"))
    return _probe_float64(xp, dev)


def wide_float(xp: ModuleType, dev: Any = None) -> Any:
    """float64 where ``xp`` has it on ``dev``, else float32."""
    return xp.float64 if has_float64(xp, dev) else xp.float32


# ------------------------------------------------------- faster standard ops
@functools.singledispatch
def cumulative_sum(x: Array) -> Array:
    """``xp.cumulative_sum(x)`` of a 1-D array.

    A singledispatch function so that a backend can route it to a faster
    kernel of the same meaning: JAX registers ``lax.associative_scan``, 3x
    faster than XLA's own cumulative sum on the CPU for 4096 elements.
    """
    return namespace(x).cumulative_sum(x)


@functools.singledispatch
def last_true_indices(mask: Array, k: int) -> Array:
    """Indices of the last ``k`` True entries of the 1-D bool ``mask``, last first.

    Where ``mask`` has fewer than ``k`` Trues, the remaining slots hold valid
    indices whose values mean nothing (the caller masks them with the count).
    The shape is always ``(k,)``: no boolean indexing, no host sync.

    The default is a cumulative sum and a binary search, O(n + k log n); JAX
    registers ``lax.top_k`` over the indices, one kernel instead of a dozen.

    Example:
        >>> import numpy as np
        >>> last_true_indices(np.array([True, False, True, True, False]), 2)
        array([3, 2])
    """
    xp = namespace(mask)
    n = mask.shape[0]
    seen = cumulative_sum(astype(xp.flip(mask, axis=0), xp.int32))
    j = xp.arange(1, k + 1, dtype=seen.dtype, device=device(mask))
    return n - 1 - xp.clip(xp.searchsorted(seen, j), 0, n - 1)


# --------------------------------------------------------------------- compile
@functools.singledispatch
def jit(like: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Compile the pure function ``fn`` for the backend of the array ``like``.

    The default returns ``fn`` unchanged (eager execution). JAX registers
    ``jax.jit``; another library registers its own compiler with
    ``@anywrap.xp.jit.register(ItsArrayType)``.
    """
    return fn


class Compiled:
    """A pure function, compiled once per backend the first time it meets it.

    ``Compiled(fn, dispatch_arg=i)`` dispatches on the type of positional
    argument ``i``. Stateful shells hold one per transform, so that a JAX step
    through a wrapper is a single dispatch of one compiled program.
    """

    __slots__ = ("_by_type", "dispatch_arg", "fn")

    def __init__(self, fn: Callable[..., Any], dispatch_arg: int = 0) -> None:
        self.fn = fn
        self.dispatch_arg = dispatch_arg
        self._by_type: dict[type, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        like = args[self.dispatch_arg]
        while isinstance(like, (dict, list, tuple)):  # NamedTuple states too
            like = next(iter(like.values())) if isinstance(like, dict) else like[0]
        tp = type(like)
        f = self._by_type.get(tp)
        if f is None:
            _load_plugin(tp)
            f = self._by_type[tp] = jit(like, self.fn)
        return f(*args, **kwargs)
