"""The xp layer: the one place that knows which array libraries exist.

Code above this layer writes ``xp = namespace(x)`` and then the Array API
standard's names (``xp.where``, ``xp.sqrt``, ``xp.mean``). What the standard
lacks is here, each a :func:`functools.singledispatch` function that a
backend registers its own form of:

* :func:`namespace`, :func:`device`, :func:`to_numpy`: what an array is and
  where it lives (``array_api_compat`` answers for every library it knows;
  NumPy values map to the ``numpy`` module itself, the fastest route);
* :func:`to_library`: any array as an array of a named library (DLPack,
  zero-copy where the two can share);
* :func:`jit` and :class:`Compiled`: a pure transform compiled by the backend
  of the arrays it meets (``jax.jit``, TorchInductor; NumPy runs it as it is);
* :func:`cond`: one of two branches by a 0-d bool, without a host sync;
* a few standard formulas that a backend may run in a faster form of the same
  formula (:func:`mean_var`, :func:`count_true`, :func:`last_true_indices`,
  :func:`push_front`, :func:`clip`).

:func:`register_backend` teaches anywrap a library in one call. NumPy is
built in; JAX and PyTorch register from :mod:`anywrap.backends` the first
time one of their arrays (or names) is met, and TensorFlow, like any third
party, through the entry point group ``anywrap.backends``: ``import anywrap``
imports none of them.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.namespace(np.zeros(3)) is np, xp.device(np.zeros(3)), xp.library_name(1.0)
    (True, 'cpu', 'numpy')
    >>> xp.describe(np.zeros((2, 3), dtype=np.float32))
    'numpy.ndarray(shape=(2, 3), dtype=float32, device=cpu)'
"""

from __future__ import annotations

import functools
import importlib
import threading
import warnings
from collections.abc import Callable
from importlib import metadata
from types import ModuleType
from typing import Any

import array_api_compat
import numpy as np

from anywrap.tree import first_leaf, leaves, tree_map
from anywrap.xp.switch import CompileRecord, compile_enabled, compile_log, set_compile

__all__ = [
    "Array",
    "CompileRecord",
    "Compiled",
    "UnknownArrayTypeError",
    "all_finite",
    "clip",
    "compile_enabled",
    "compile_log",
    "cond",
    "count_true",
    "describe",
    "device",
    "is_host",
    "jit",
    "last_true_indices",
    "library_name",
    "mean_var",
    "namespace",
    "push_front",
    "register_backend",
    "register_namespace",
    "resolve_dtype",
    "set_compile",
    "to_library",
    "to_numpy",
    "wide_float",
]

Array = Any
"""Any array of a supported library (the Array API has no common base class)."""

ENTRY_POINT_GROUP = "anywrap.backends"
"""Entry points of this group name a module that calls :func:`register_backend`."""

_CORE = {"jax": "anywrap.backends.jax", "jaxlib": "anywrap.backends.jax"}
_CORE["torch"] = "anywrap.backends.torch"
_HOST_TYPES: tuple[type, ...] = (np.ndarray, np.generic, float, int, bool)
_SCALARS = (float, int, bool)


class UnknownArrayTypeError(TypeError):
    """An array type that neither the registry nor array-api-compat knows."""


# ------------------------------------------------------------------ registry
class _Backend:
    """One library: its name, its namespace, and how to bring any array into it."""

    __slots__ = ("from_array", "name", "namespace")

    def __init__(self, name: str, namespace: Any, from_array: Any = None) -> None:
        self.name, self.namespace, self.from_array = name, namespace, from_array

    def module(self) -> Any:
        """The namespace, for a lookup by name (no array at hand)."""
        ns = self.namespace
        return ns(None) if callable(ns) and not isinstance(ns, ModuleType) else ns


_NUMPY = _Backend("numpy", np)
_by_type: dict[type, _Backend] = {tp: _NUMPY for tp in _HOST_TYPES}
_by_name: dict[str, _Backend] = {"numpy": _NUMPY, "np": _NUMPY}
_namespaces: dict[type, Any] = {tp: np for tp in (np.ndarray, np.float64, np.float32, *_SCALARS)}
"""Per exact type, its namespace: the hot path of :func:`namespace`."""
_loaded: set[str] = set()
_lock = threading.RLock()
_entry_points: dict[str, Any] | None = None


def register_backend(
    array_types: type | tuple[type, ...],
    *,
    namespace: Any,
    name: str | None = None,
    device: Callable[[Any], Any] | None = None,
    to_numpy: Callable[[Any], np.ndarray] | None = None,
    from_array: Callable[[Any, Any], Any] | None = None,
    jit: Callable[..., Callable[..., Any]] | None = None,
    aliases: tuple[str, ...] = (),
) -> None:
    """Teach anywrap an array library, in one call.

    Only ``array_types`` and ``namespace`` are needed; each other hook has a
    default that follows the Array API standard and DLPack. A registration
    takes precedence over array-api-compat and over an earlier one.

    Args:
        array_types: The library's array types (JAX lists its tracers too).
        namespace: The Array API namespace of those arrays, or ``x -> namespace``.
        name: The library's name for ``to=`` arguments (default: the top-level
            module of the first type).
        device: ``x -> `` its device (default: ``array_api_compat.device``).
        to_numpy: ``x -> `` a NumPy view or copy on the host (default: DLPack).
        from_array: ``(x, device) -> `` an array of any library (this one's
            included) as one of this library, on ``device`` (``None``: where
            it is); default: the namespace's ``from_dlpack``, else a host copy.
        jit: ``(fn, donate=False) -> `` ``fn`` compiled (default: ``fn`` itself).
        aliases: Other names of the library (``"tf"``, ``"pytorch"``).

    Example:
        >>> import numpy as np
        >>> from anywrap import xp
        >>> class Tagged(np.ndarray): ...
        >>> xp.register_backend(Tagged, namespace=np, name="tagged")
        >>> xp.library_name(np.zeros(2).view(Tagged)), xp.namespace(np.zeros(2).view(Tagged)) is np
        ('tagged', True)
    """
    types = array_types if isinstance(array_types, tuple) else (array_types,)
    if not types:
        raise ValueError("register_backend: expected at least one array type")
    name = name or types[0].__module__.split(".", 1)[0]
    backend = _Backend(name, namespace, from_array)
    with _lock:
        for tp in types:
            _by_type[tp] = backend
            for hook, fn in ((_device, device), (_to_numpy, to_numpy), (_jit, jit)):
                if fn is not None:
                    hook.register(tp)(_adapt(hook, fn))
        for key in (name, *aliases):
            _by_name[key] = backend
        _namespaces.clear()
        _namespaces.update({tp: np for tp in (np.ndarray, np.float64, np.float32, *_SCALARS)})


def _adapt(hook: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    if hook is _jit:  # the hook is jit(fn, donate); dispatch is on an example array
        return lambda like, f, donate=False: fn(f, donate=donate)
    return fn


def register_namespace(array_type: type, namespace: Any) -> None:
    """:func:`register_backend` with every default: teach anywrap the Array API
    namespace (or ``x -> namespace``) of ``array_type`` and its subclasses."""
    register_backend(array_type, namespace=namespace)


def _entry_point_map() -> dict[str, Any]:
    global _entry_points
    if _entry_points is None:
        try:
            found = metadata.entry_points(group=ENTRY_POINT_GROUP)
        except Exception:  # broken metadata must not break anywrap
            found = ()  # type: ignore[assignment]
        _entry_points = {ep.name: ep for ep in found}
    return _entry_points


def _load(top: str) -> bool:
    """Import the module that registers the library ``top``, once; whether one
    was imported by this call. Thread-safe: a second thread waits for the import,
    which is marked done only once it has finished."""
    if top in _loaded:
        return False
    with _lock:
        if top in _loaded:
            return False
        try:
            module = _CORE.get(top)
            if module is not None:
                importlib.import_module(module)
            elif top in _entry_point_map():
                _entry_point_map()[top].load()
            else:
                return False
        finally:
            _loaded.add(top)
        return True


def _top(tp: type) -> str:
    return tp.__module__.split(".", 1)[0]


def _backend_of_type(tp: type, x: Any) -> _Backend:
    for attempt in range(2):
        for base in tp.__mro__:
            found = _by_type.get(base)
            if found is not None:
                return found
        if attempt or not _load(_top(tp)):
            break
    try:
        ns = array_api_compat.array_namespace(x)
    except TypeError:
        raise UnknownArrayTypeError(
            f"anywrap does not know the array type {tp.__module__}.{tp.__qualname__}: it is not "
            "an array of a known library. Teach anywrap its Array API namespace with "
            f"`anywrap.xp.register_namespace({tp.__qualname__}, <namespace module>)`, or a whole "
            "backend with `anywrap.xp.register_backend`"
        ) from None
    name = ns.__name__.removeprefix("array_api_compat.").split(".", 1)[0]
    with _lock:  # a library that array-api-compat knows (CuPy, array-api-strict, ...)
        backend = _by_type[tp] = _by_name.setdefault(name, _Backend(name, ns))
    return backend


def namespace(*arrays: Any) -> Any:
    """The Array API namespace shared by ``arrays``.

    NumPy arrays and Python scalars map to the ``numpy`` module itself, which
    follows the standard since NumPy 2.0. Python scalars and ``None`` do not
    vote when an array is present.

    Raises:
        UnknownArrayTypeError: a type that no backend knows (the message says how
            to register it).
        TypeError: arrays of different libraries, or no array at all.
    """
    if len(arrays) == 1:  # the hot path: one array of a type met before
        found = _namespaces.get(type(arrays[0]))
        if found is not None:
            return found
    found = None
    for x in arrays:
        if x is None or type(x) in _SCALARS:
            continue
        xp = _namespaces.get(type(x))
        if xp is None:
            tp = type(x)
            ns = _backend_of_type(tp, x).namespace
            xp = ns(x) if callable(ns) and not isinstance(ns, ModuleType) else ns
            _namespaces[tp] = xp
        if found is None:
            found = xp
        elif xp is not found:
            raise TypeError(
                f"arrays of different libraries are mixed: {found.__name__} and {xp.__name__}"
            )
    if found is None:
        if arrays:  # only Python scalars (and None)
            return np
        raise TypeError("namespace() needs at least one array")
    return found


def _backend_named(library: str | ModuleType) -> _Backend:
    """The backend of a library given as a name or alias (``"torch"``, ``"tf"``) or a
    module (``numpy``, ``jax.numpy``, ``array_api_compat.torch``)."""
    key = library if isinstance(library, str) else getattr(library, "__name__", None)
    if not isinstance(key, str):
        raise TypeError(f"expected a library name or module, got {library!r}")
    key = key.removeprefix("array_api_compat.").removeprefix("anywrap.backends.")
    for attempt in (key, key.split(".", 1)[0]):
        found = _by_name.get(attempt)
        if found is None and _load(attempt):
            found = _by_name.get(attempt)
        if found is not None:
            return found
    top = key.split(".", 1)[0]
    try:
        module = importlib.import_module(top)
    except ImportError:
        known = sorted({*_by_name, *_CORE, *_entry_point_map()} - {"jaxlib"})
        raise ValueError(
            f"unknown array library {library!r}: expected one of {known}, or the import "
            "name of an installed Array API library"
        ) from None
    if not hasattr(module, "from_dlpack"):
        raise ValueError(f"{top!r} is not an array library (it has no from_dlpack)")
    with _lock:
        return _by_name.setdefault(top, _Backend(top, module))


def library_name(x: Any) -> str:
    """The name of ``x``'s library (``'numpy'``, ``'jax'``, ``'torch'``), or of a
    library given by name, alias or module (``'np'`` -> ``'numpy'``)."""
    if isinstance(x, (str, ModuleType)):
        return _backend_named(x).name
    try:
        return _backend_of_type(type(x), x).name
    except UnknownArrayTypeError:
        return _top(type(x))


def _lazy(hook: Callable[..., Any], generic: Callable[..., Any]) -> Callable[..., Any]:
    """The default of a hook: load the backend of the argument's library if it has
    one that is not loaded yet (then dispatch again), else the generic form."""

    def default(x: Any, *args: Any, **kwargs: Any) -> Any:
        if _load(_top(type(x))):
            return hook(x, *args, **kwargs)
        return generic(x, *args, **kwargs)

    return default


def _generic_to_numpy(x: Any) -> np.ndarray:
    try:
        return np.from_dlpack(x)
    except Exception:
        pass
    try:  # DLPack 1.0: ask the producer for a copy on the host
        return np.from_dlpack(x, device="cpu", copy=True)
    except Exception:
        return np.asarray(x)


@functools.singledispatch
def _device(x: Any) -> Any:
    return _lazy(_device, array_api_compat.device)(x)


@functools.singledispatch
def _to_numpy(x: Any) -> np.ndarray:
    return _lazy(_to_numpy, _generic_to_numpy)(x)


@functools.singledispatch
def _jit(like: Any, fn: Callable[..., Any], donate: bool = False) -> Callable[..., Any]:
    return _lazy(_jit, lambda like, fn, donate=False: fn)(like, fn, donate)


for _tp in _HOST_TYPES:
    _device.register(_tp)(lambda x: "cpu")
    _to_numpy.register(_tp)(np.asarray)
for _tp in (list, tuple):
    _to_numpy.register(_tp)(np.asarray)


def device(x: Any) -> Any:
    """The device ``x`` lives on (``'cpu'`` for NumPy arrays and Python scalars;
    ``None`` for a value traced by a compiler that places it later)."""
    return _device(x)


def to_numpy(x: Any) -> np.ndarray:
    """A host view or copy of any array, for checkpoints, reports and display.

    Never on the step path: for a device array this is a host sync.

    Example:
        >>> to_numpy([1.0, 2.0])
        array([1., 2.])
    """
    return _to_numpy(x)


def to_library(x: Any, library: str | ModuleType, device: Any = None) -> Any:
    """``x`` (an array of any library) as an array of ``library``, on ``device``
    (``None``: where it is). Zero-copy where DLPack lets the two share the buffer;
    otherwise one copy, made by the source.

    Raises:
        ValueError: an unknown library, or a device it cannot use here.

    Example:
        >>> import numpy as np
        >>> x = np.arange(3.0)
        >>> to_library(x, "numpy") is x
        True
    """
    backend = _backend_named(library)
    if backend.from_array is not None:
        return backend.from_array(x, device)
    if backend is _NUMPY:
        if device is not None and str(device) != "cpu":
            raise ValueError(f"NumPy arrays live on the host ('cpu'), not on {device!r}")
        return x if type(x) is np.ndarray else to_numpy(x)
    xp = backend.module()
    if namespace(x) is not xp:
        try:
            x = xp.from_dlpack(x)
        except Exception:  # a source that DLPack cannot share (another device, read-only, ...)
            x = xp.asarray(to_numpy(x))
    return x if device is None else array_api_compat.to_device(x, device)


def is_host(x: Any) -> bool:
    """Whether ``x`` is a NumPy value or a Python scalar: already on the host.

    Shells may branch on host values (as Gymnasium does), never on others.
    """
    return isinstance(x, _HOST_TYPES)


def describe(x: Any) -> str:
    """A line for error messages: library, type, shape, dtype and device."""
    tp = type(x)
    if x is None or isinstance(x, _SCALARS):
        return "None" if x is None else f"{tp.__name__} {x!r}"
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


# --------------------------------------------------------------- dtype policy
def _has_float64(xp: Any, dev: Any = None) -> bool:
    """Whether ``xp`` holds float64 on ``dev`` (not JAX without x64, nor Apple's MPS).
    A probe, not cached: JAX's switch can change at any time."""
    if xp is np:
        return True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(xp.zeros((), dtype=xp.float64, device=dev).dtype == xp.float64)
        except Exception:
            return False


def wide_float(xp: Any, device: Any = None) -> Any:
    """float64 where ``xp`` has it on ``device``, else float32."""
    return xp.float64 if _has_float64(xp, device) else xp.float32


def resolve_dtype(xp: Any, name: Any, device: Any = None) -> Any:
    """``xp``'s dtype called ``name``; 64-bit types fall back to 32 bits where absent.

    Example:
        >>> import numpy as np
        >>> resolve_dtype(np, "float32")
        <class 'numpy.float32'>
    """
    name = name if isinstance(name, str) else np.dtype(name).name
    if name in ("float64", "int64", "uint64") and not _has_float64(xp, device):
        name = name.replace("64", "32")  # JAX without x64 holds none of them
    return getattr(xp, name)


# ---------------------------------------------------------------- compilation
def jit(like: Any, fn: Callable[..., Any], *, donate: bool = False) -> Callable[..., Any]:
    """``fn`` compiled by the backend of the array ``like`` (NumPy: ``fn`` itself).

    ``donate=True`` lets the program reuse the memory of ``fn``'s first argument
    (the caller gives it up).
    """
    return _jit(like, fn, donate)


class Compiled:
    """A pure function, compiled the first time it meets each array type.

    ``Compiled(fn, dispatch_arg=i)`` dispatches on the type of positional
    argument ``i`` (its first leaf, for a tree); ``dispatch_arg=None`` on the
    first leaf of any argument that is not a host value (a function of a JAX
    observation and a Python reward), the host values then being inputs of the
    program.

    Example:
        >>> import numpy as np
        >>> double = Compiled(lambda x: 2 * x)
        >>> double(np.arange(3))  # NumPy has no compiler: the function runs as it is
        array([0, 2, 4])
    """

    __slots__ = ("_by_type", "dispatch_arg", "donate", "fn")

    def __init__(
        self, fn: Callable[..., Any], dispatch_arg: int | None = 0, *, donate: bool = False
    ) -> None:
        self.fn, self.dispatch_arg, self.donate = fn, dispatch_arg, donate
        self._by_type: dict[type, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.dispatch_arg is None:
            like = next((x for x in leaves(args) if x is not None and not is_host(x)), args[0])
        else:
            like = args[self.dispatch_arg]
        f = self._by_type.get(type(like))
        if f is None:
            leaf = first_leaf(like)
            f = self._by_type.get(type(leaf))
            if f is None:
                f = jit(leaf, self.fn, donate=self.donate)
                self._by_type[type(leaf)] = f
        return f(*args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        # Compiled programs are not pickled (nor deep-copied): they are made again.
        return {"fn": self.fn, "dispatch_arg": self.dispatch_arg, "donate": self.donate}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.fn, self.dispatch_arg, self.donate = state["fn"], state["dispatch_arg"], state["donate"]
        self._by_type = {}


# ---------------------------------------------------------------- routed ops
@functools.singledispatch
def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *operands: Any):
    """``true_fn(*operands)`` where the 0-d bool ``pred`` holds, else ``false_fn(*operands)``;
    both return trees of one structure.

    The generic form computes both and selects, with no host sync. NumPy
    branches on its host value; JAX takes ``lax.cond``, which runs one branch.

    Example:
        >>> import numpy as np
        >>> cond(np.True_, lambda x: x, lambda x: x + 1.0, np.float64(5.0))
        np.float64(5.0)
    """
    a, b = true_fn(*operands), false_fn(*operands)
    return tree_map(lambda x, y: namespace(x).where(pred, x, y), a, b)


@cond.register(bool)
@cond.register(np.bool_)
@cond.register(np.ndarray)
def _cond_host(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *ops: Any):
    return true_fn(*ops) if pred else false_fn(*ops)


@functools.singledispatch
def mean_var(x: Array, mask: Array | None = None) -> tuple[Array, Array]:
    """The mean and population variance along axis 0 of the rows of ``x`` where the
    bool ``mask`` (shape ``(batch,)``) holds, of every row without one.

    Without a mask, ``xp.mean`` and ``xp.var`` (on NumPy ``np.mean`` and
    ``np.var``: Gymnasium's numbers). With one, the rows left out are zeroed and
    the sums divided by the count (the shape never depends on the data); NumPy,
    whose mask is a host value, takes the rows themselves instead, as Gymnasium
    does. A backend may read the batch once (PyTorch's ``var_mean``), for the
    same moments to the rounding of the dtype.

    Example:
        >>> import numpy as np
        >>> mean_var(np.array([[1.0, 2.0], [3.0, 6.0]]))
        (array([2., 4.]), array([1., 4.]))
    """
    xp = namespace(x)
    if mask is None:
        return xp.mean(x, axis=0), xp.var(x, axis=0)
    rows = xp.reshape(mask, (x.shape[0],) + (1,) * (x.ndim - 1))
    n = xp.astype(xp.maximum(xp.sum(xp.astype(mask, xp.int32)), 1), x.dtype)
    mean = xp.sum(xp.where(rows, x, 0), axis=0) / n
    return mean, xp.sum(xp.where(rows, xp.square(x - mean), 0), axis=0) / n


@mean_var.register(np.ndarray)
def _mean_var_numpy(x: np.ndarray, mask: Any = None) -> tuple[Any, Any]:
    # np.mean and np.var, of the selected rows (the selection is exact); a row
    # with a NaN or infinity, which the statistics will leave out, must not make
    # NumPy warn.
    if mask is not None:
        x = x[np.asarray(mask)]
        if not x.shape[0]:  # nothing selected: no moments (a merge of 0 rows ignores them)
            return np.zeros(x.shape[1:], x.dtype), np.zeros(x.shape[1:], x.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.mean(x, axis=0), np.var(x, axis=0)


@functools.singledispatch
def all_finite(x: Array, *more: Array) -> Any:
    """Whether every entry of every array is finite: a 0-d bool (NumPy: a host bool).

    Example:
        >>> import numpy as np
        >>> bool(all_finite(np.ones(3), np.array([1.0, np.inf])))
        False
    """
    xp = namespace(x)
    ok = xp.all(xp.isfinite(x))
    for y in more:
        ok = xp.logical_and(ok, xp.all(xp.isfinite(y)))
    return ok


@all_finite.register(np.ndarray)
@all_finite.register(np.generic)
def _all_finite_numpy(x: Any, *more: Any) -> Any:
    ok = np.isfinite(x).all()  # the method: np.all's Python wrapper costs more
    for y in more:
        ok = ok and np.isfinite(y).all()
    return ok


@functools.singledispatch
def count_true(mask: Array) -> Any:
    """How many entries of the bool ``mask`` are True: a 0-d int32 array (NumPy: an
    exact Python int, which the merges then treat as a host value)."""
    xp = namespace(mask)
    return xp.sum(xp.astype(mask, xp.int32))


@count_true.register(np.ndarray)
def _count_true_numpy(mask: np.ndarray) -> int:
    return int(np.count_nonzero(mask))


@functools.singledispatch
def last_true_indices(mask: Array, k: int) -> Array:
    """Indices of the last ``k`` True entries of the 1-D bool ``mask``, last first.

    Where ``mask`` has fewer than ``k`` Trues the other slots hold valid indices
    whose values mean nothing (callers mask them with the count). The shape is
    always ``(k,)``: no boolean indexing, no host sync.

    Example:
        >>> import numpy as np
        >>> last_true_indices(np.array([True, False, True, True, False]), 2)
        array([3, 2])
    """
    xp = namespace(mask)
    n = mask.shape[0]
    seen = xp.cumulative_sum(xp.astype(xp.flip(mask, axis=0), xp.int32))
    j = xp.arange(1, k + 1, dtype=seen.dtype, device=device(mask))
    return n - 1 - xp.clip(xp.searchsorted(seen, j), 0, n - 1)


@last_true_indices.register(np.ndarray)
def _last_true_indices_numpy(mask: np.ndarray, k: int) -> np.ndarray:
    found = np.flatnonzero(mask)[::-1][:k]  # host values: the Trues can be listed
    return np.concatenate([found, np.zeros(k - found.shape[0], dtype=found.dtype)])


@functools.singledispatch
def push_front(buffer: Array, fresh: Array, k: Any) -> Array:
    """A newest-first ``buffer`` with the first ``k`` entries of ``fresh`` in front and
    its oldest ``k`` dropped: slot ``j`` holds ``fresh[j]`` where ``j < k``, else
    ``buffer[j - k]``. ``k`` may be a 0-d array; ``fresh`` has the buffer's length.

    Example:
        >>> import numpy as np
        >>> push_front(np.array([3, 2, 1]), np.array([5, 4, 0]), 2)
        array([5, 4, 3])
    """
    xp = namespace(buffer)
    size = buffer.shape[0]
    j = xp.arange(size, device=device(buffer))
    older = xp.take(buffer, xp.clip(j - k, 0, size - 1))
    return xp.where(j < k, xp.astype(fresh, buffer.dtype), older)


@functools.singledispatch
def clip(x: Array, low: Any, high: Any) -> Array:
    """``xp.clip(x, low, high)`` (NaN propagates); NumPy takes ``minimum(maximum(x, low),
    high)``, ``np.clip``'s own definition without its Python wrapper."""
    return namespace(x).clip(x, low, high)


@clip.register(np.ndarray)
def _clip_numpy(x: np.ndarray, low: Any, high: Any) -> np.ndarray:
    return np.minimum(np.maximum(x, low), high)
