"""The registry: which array libraries exist, where an array lives, how it becomes another
library's array, and the dtype policy (documented by :mod:`anywrap.xp`)."""

from __future__ import annotations

import functools
import importlib
import reprlib
import threading
import warnings
from collections.abc import Callable
from importlib import metadata
from types import ModuleType
from typing import Any, NamedTuple

import array_api_compat
import numpy as np

Array = Any
"""Any array of a supported library (the Array API has no common base class)."""

ENTRY_POINT_GROUP = "anywrap.backends"  # entry points naming a module that registers

# The built-in backends, by the names (and aliases) that load them on first use.
_CORE = dict.fromkeys(("jax", "jaxlib", "jnp"), "anywrap.backends.jax")
_CORE.update(dict.fromkeys(("torch", "pytorch"), "anywrap.backends.torch"))
_HOST_TYPES: tuple[type, ...] = (np.ndarray, np.generic, float, int, bool)
_SCALARS = (float, int, bool)
_NUMPY_FAST = (np.ndarray, np.float64, np.float32, *_SCALARS)


class UnknownArrayTypeError(TypeError):
    """An array type that neither the registry nor array-api-compat knows."""


class _Backend(NamedTuple):
    name: str
    namespace: Any
    from_array: Any = None

    def module(self, x: Any = None) -> Any:
        ns = self.namespace
        return ns(x) if callable(ns) and not isinstance(ns, ModuleType) else ns


_NUMPY = _Backend("numpy", np)
_by_type: dict[type, _Backend] = {tp: _NUMPY for tp in _HOST_TYPES}
_by_name: dict[str, _Backend] = {"numpy": _NUMPY, "np": _NUMPY}
_namespaces: dict[type, Any] = dict.fromkeys(_NUMPY_FAST, np)  # the hot path of namespace()
_loaded: set[str] = set()
_lock = threading.RLock()


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
    """Teach anywrap an array library, in one call; it takes precedence over
    array-api-compat and over an earlier registration.

    Args:
        array_types: The library's array types (JAX lists its tracers too).
        namespace: The Array API namespace of those arrays, or ``x -> namespace``.
        name: The library's name for ``to=`` arguments (default: the top-level
            module of the first type).
        device: ``device(x)`` (default: ``array_api_compat.device``).
        to_numpy: ``to_numpy(x)``: a NumPy view or copy (default: DLPack).
        from_array: ``from_array(x, device)``: any array as one of this library, on
            ``device`` (``None``: where it is); default: ``from_dlpack``, else a host copy.
        jit: ``jit(fn, donate=False)``: ``fn`` compiled (default: ``fn`` itself).
        aliases: Other names of the library (``"tf"``, ``"pytorch"``).

    Example:
        >>> from anywrap import xp
        >>> class Tagged(np.ndarray): ...
        >>> xp.register_backend(Tagged, namespace=np, name="tagged")
        >>> xp.library_name(np.zeros(2).view(Tagged)), xp.namespace(np.zeros(2).view(Tagged)) is np
        ('tagged', True)
    """
    types = array_types if isinstance(array_types, tuple) else (array_types,)
    if not types:
        raise ValueError("register_backend: expected at least one array type")
    # Checked before the registry changes: a bad hook would fail later, far from here.
    hooks = {"device": device, "to_numpy": to_numpy, "from_array": from_array, "jit": jit}
    wrong: list[tuple[str, Any, str]] = [
        (k, f, "a callable or None") for k, f in hooks.items() if f is not None and not callable(f)
    ]
    if not all(isinstance(t, type) for t in types):
        wrong.append(("array_types", array_types, "a class or a tuple of them"))
    if name is not None and not (isinstance(name, str) and name):
        wrong.append(("name", name, "a non-empty str or None"))
    if not (isinstance(aliases, tuple) and all(isinstance(a, str) for a in aliases)):
        wrong.append(("aliases", aliases, "a tuple of str"))
    for key, value, want in wrong[:1]:
        raise TypeError(f"register_backend: expected `{key}` to be {want}, got {value!r}")
    name = name or types[0].__module__.split(".", 1)[0]
    backend = _Backend(name, namespace, from_array)
    with _lock:
        _by_type.update(dict.fromkeys(types, backend))
        for hook, fn in ((_device, device), (_to_numpy, to_numpy)):
            if fn is not None:
                hook.register(types, fn)
        if jit is not None:  # the hook is jit(fn, donate); dispatch is on an example array
            _jit.register(types, lambda like, f, donate=False: jit(f, donate=donate))
        _by_name.update(dict.fromkeys((name, *aliases), backend))
        _namespaces.clear()
        _namespaces.update(dict.fromkeys(_NUMPY_FAST, np))


def register_namespace(array_type: type, namespace: Any) -> None:
    """:func:`register_backend` with every default."""
    register_backend(array_type, namespace=namespace)


@functools.cache
def _entry_point_map() -> dict[str, Any]:
    try:
        found = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # broken metadata must not break anywrap
        found = ()  # type: ignore[assignment]
    return {ep.name: ep for ep in found}


def _load(top: str) -> bool:
    """Import the module that registers the library ``top``, once; whether this call did."""
    if top in _loaded:
        return False
    with _lock:
        if top in _loaded:
            return False
        _loaded.add(top)  # once, whether or not the import succeeds
        if top in _CORE:
            importlib.import_module(_CORE[top])
        elif top in _entry_point_map():
            _entry_point_map()[top].load()
        else:
            return False
        return True


def _top(tp: type) -> str:
    return tp.__module__.split(".", 1)[0]


def _backend_of_type(tp: type, x: Any) -> _Backend:
    for attempt in range(2):  # again once its library's backend has registered its types
        for base in tp.__mro__:
            if base in _by_type:
                return _by_type[base]
        if attempt or not _load(_top(tp)):
            break
    try:
        ns = array_api_compat.array_namespace(x)
    except TypeError:
        raise UnknownArrayTypeError(
            f"anywrap does not know the array type {tp.__module__}.{tp.__qualname__}: it is not "
            "an array of a known library. Teach anywrap its Array API namespace with "
            f"`anywrap.xp.register_namespace({tp.__qualname__}, <namespace module>)`, or a whole "
            "backend with `anywrap.xp.register_backend` (the guide 'Adding an array library', "
            "docs/guide/backends.md)"
        ) from None
    name = ns.__name__.removeprefix("array_api_compat.").split(".", 1)[0]
    with _lock:  # a library that array-api-compat knows (CuPy, array-api-strict, ...)
        backend = _by_type[tp] = _by_name.setdefault(name, _Backend(name, ns))
    return backend


def _backend_named(library: str | ModuleType) -> _Backend:
    """The backend of a library given as a name, alias or module."""
    key = library if isinstance(library, str) else getattr(library, "__name__", None)
    if not isinstance(key, str):
        raise TypeError(f"expected a library name or module, got {library!r}")
    key = key.removeprefix("array_api_compat.").removeprefix("anywrap.backends.")
    for attempt in (key, key.split(".", 1)[0]):
        if attempt in _by_name or (_load(attempt) and attempt in _by_name):
            return _by_name[attempt]
    top = key.split(".", 1)[0]
    try:
        module = importlib.import_module(top)
    except ImportError:
        known = sorted({*_by_name, *_CORE, *_entry_point_map()} - {"jaxlib", "jnp", "pytorch"})
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


class Route:
    """A :func:`functools.singledispatch` function that keeps each exact type's
    implementation in a dict, which TorchDynamo before PyTorch 2.8 traces (singledispatch's
    cache token it does not); :meth:`register` takes a type or a tuple of types."""

    __slots__ = ("__dict__", "__weakref__", "_found", "_generic")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._generic = functools.singledispatch(fn)
        self._found: dict[type, Callable[..., Any]] = {}
        functools.update_wrapper(self, fn)
        self.dispatch = self._generic.dispatch

    def __call__(self, x: Any, *args: Any, **kwargs: Any) -> Any:
        impl = self._found.get(type(x))
        if impl is None:  # a type not met yet: its backend registers its routes first
            _load(_top(type(x)))
            impl = self._found[type(x)] = self._generic.dispatch(type(x))
        return impl(x, *args, **kwargs)

    def register(self, cls: type | tuple[type, ...], func: Callable[..., Any] | None = None):
        if func is None:
            return lambda f: self.register(cls, f)
        for tp in cls if isinstance(cls, tuple) else (cls,):
            self._generic.register(tp, func)
        self._found.clear()
        return func


# The hooks' generic forms (a Route has loaded the argument's backend before it dispatches).
@Route
def device(x: Any) -> Any:
    """The device ``x`` lives on (``'cpu'`` for NumPy arrays and Python scalars;
    ``None`` for a value traced by a compiler that places it later)."""
    return array_api_compat.device(x)


@Route
def to_numpy(x: Any) -> np.ndarray:
    """A host view or copy of any array (a host sync for a device array).

    Example:
        >>> to_numpy([1.0, 2.0])
        array([1., 2.])
    """
    # Shared where it can be, else (DLPack 1.0) a copy the producer makes on the host.
    for kwargs in ({}, {"device": "cpu", "copy": True}):
        try:
            return np.from_dlpack(x, **kwargs)  # type: ignore[arg-type]
        except Exception:
            pass
    return np.asarray(x)


@Route
def jit(like: Any, fn: Callable[..., Any], *, donate: bool = False) -> Callable[..., Any]:
    """``fn`` compiled by the backend of the array ``like`` (NumPy: ``fn`` itself);
    ``donate=True`` lets the program reuse the memory of ``fn``'s first argument."""
    return fn


_device, _to_numpy, _jit = device, to_numpy, jit  # register_backend's arguments shadow them
device.register(_HOST_TYPES, lambda x: "cpu")
to_numpy.register((*_HOST_TYPES, list, tuple), np.asarray)


def to_library(x: Any, library: str | ModuleType, device: Any = None) -> Any:
    """``x`` (an array of any library) as an array of ``library``, on ``device``
    (``None``: where it is); zero-copy where DLPack lets the two share the buffer.

    Raises:
        ValueError: an unknown library, or a device it cannot use here.

    Example:
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
    if _backend_of_type(type(x), x) is not backend:
        try:
            x = xp.from_dlpack(x)
        except Exception:  # a source that DLPack cannot share (another device, read-only, ...)
            x = xp.asarray(to_numpy(x))
    return x if device is None else array_api_compat.to_device(x, device)


def is_host(x: Any) -> bool:
    """Whether ``x`` is a NumPy value or a Python scalar (shells may branch on those)."""
    return isinstance(x, _HOST_TYPES)


def describe(x: Any) -> str:
    """A line for error messages: library, type, shape, dtype and device."""
    tp = type(x)
    if x is None:
        return "None"
    if isinstance(x, (*_SCALARS, str, bytes)):  # a string is no library's name here
        return f"{tp.__name__} {reprlib.repr(x)}"
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


def _has_float64(xp: Any, dev: Any = None) -> bool:
    """Whether ``xp`` holds float64 on ``dev`` (not cached: JAX's x64 switch can change)."""
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
        >>> resolve_dtype(np, "float32")
        <class 'numpy.float32'>
    """
    name = name if isinstance(name, str) else np.dtype(name).name
    if name in ("float64", "int64", "uint64") and not _has_float64(xp, device):
        name = name.replace("64", "32")  # JAX without x64 holds none of them
    return getattr(xp, name)
