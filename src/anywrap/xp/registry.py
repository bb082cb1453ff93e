"""The backend registry: everything anywrap knows about an array library, in one record.

A :class:`Backend` says how to find the Array API namespace of an array, its
device, how to bring an array of any other library into this one (DLPack),
how to copy one to the host, how to compile a pure function, and whether a
device holds float64. :func:`register_backend` adds one; routed operations
(:mod:`anywrap.xp.ops`) take a backend's fast kernels through
:meth:`Backend.route`.

Backends load lazily, the first time one of their arrays (or their name) is
met, so ``import anywrap`` imports no array library:

* JAX and PyTorch are set up by ``anywrap.xp._jax`` and ``anywrap.xp._torch``.
* Any other package declares an entry point in the group
  ``anywrap.backends``, named after the top-level module of its array type,
  whose module calls :func:`register_backend` when imported. anywrap's own
  TensorFlow backend (``anywrap.backends.tensorflow``) is registered that way,
  exactly as an outside package would be.
* A library nobody registered still works when array-api-compat knows it
  (CuPy, array-api-strict, ...): a generic backend is made for it on first use.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> class Tagged(np.ndarray): ...
    >>> _ = xp.register_backend(xp.Backend("tagged", (Tagged,), namespace=lambda x: np))
    >>> xp.backend_of(np.zeros(2).view(Tagged)).name
    'tagged'
    >>> xp.namespace(np.zeros(2).view(Tagged)) is np
    True
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from types import ModuleType
from typing import Any

import array_api_compat
import numpy as np

__all__ = [
    "Backend",
    "UnknownArrayTypeError",
    "backend_named",
    "backend_of",
    "backend_of_namespace",
    "device",
    "exportable",
    "is_on_host",
    "library_name",
    "namespace",
    "register_backend",
    "register_namespace",
    "resolve_library",
    "to_numpy",
]

ENTRY_POINT_GROUP = "anywrap.backends"
"""Entry points of this group name a module that registers a backend when imported."""

# The backends that live inside the xp layer, imported the first time one of
# their arrays or names is met. Keyed by a top-level module name or an alias.
_CORE_LAZY: dict[str, str] = {
    "jax": "anywrap.xp._jax",
    "jaxlib": "anywrap.xp._jax",
    "jnp": "anywrap.xp._jax",
    "torch": "anywrap.xp._torch",
    "pytorch": "anywrap.xp._torch",
}

_HOST_TYPES: tuple[type, ...] = (np.ndarray, np.generic, float, int, bool)


class UnknownArrayTypeError(TypeError):
    """Raised for an array type that neither array-api-compat nor the registry knows."""


def _never_compile(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


@dataclass(eq=False)
class Backend:
    """Everything anywrap needs to know about one array library.

    Only ``name``, ``array_types`` and ``namespace`` are required; every other
    hook has a default that follows the Array API standard and DLPack.

    Attributes:
        name: Canonical library name (``"torch"``), used by ``to=`` arguments.
        array_types: The array types of the library (JAX lists its tracers too).
        namespace: ``x -> `` the Array API namespace of ``x``.
        device: ``x -> `` the device of ``x`` (default: ``array_api_compat.device``).
        to_numpy: ``x -> `` a NumPy view or copy on the host (default: a DLPack
            view, then a DLPack copy to the CPU, then ``np.asarray``).
        from_array: ``(x, device) -> `` ``x`` (an array of any library) as an array
            of this one, zero-copy where DLPack allows; ``device=None`` keeps
            ``x``'s device (default: the namespace's ``from_dlpack``, then a
            host copy).
        to_device: ``(x, device) -> `` ``x`` (this library's) moved to ``device``.
        jit: ``fn -> `` a compiled ``fn`` (default: ``fn`` itself, eager).
        jit_donating: ``fn -> `` a compiled ``fn`` that may reuse the memory of its
            first argument (default: :attr:`jit`).
        has_float64: ``device -> `` whether float64 arrays can live there
            (default: a probe, made once per device).
        exportable: ``x -> `` ``x`` in a form whose ``__dlpack__`` can be
            exported (PyTorch detaches tensors that require grad); default ``x``.
        check_device: ``device -> None``: raises ``ValueError`` for a device that
            this library cannot use here (a CUDA device without a GPU), so that
            wrappers refuse it when they are built; default: no check.
        on_host: ``x -> `` whether ``x``'s memory is host memory, read without a
            sync (default: its DLPack device).
        aliases: Other names of the library (``"pytorch"``, ``"tf"``).
    """

    name: str
    array_types: tuple[type, ...]
    namespace: Callable[[Any], Any]
    device: Callable[[Any], Any] | None = None
    to_numpy: Callable[[Any], np.ndarray] | None = None
    from_array: Callable[[Any, Any], Any] | None = None
    to_device: Callable[[Any, Any], Any] | None = None
    jit: Callable[[Callable[..., Any]], Callable[..., Any]] = _never_compile
    jit_donating: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None
    has_float64: Callable[[Any], bool] | None = None
    exportable: Callable[[Any], Any] | None = None
    check_device: Callable[[Any], None] | None = None
    on_host: Callable[[Any], bool] | None = None
    aliases: tuple[str, ...] = ()
    _float64: dict[str, bool] = field(default_factory=dict, repr=False)

    def route(self, op: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: register a kernel of the routed operation ``op`` for every
        array type of this backend (see :class:`anywrap.xp.ops.Route`)."""

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            for tp in self.array_types:
                op.register(tp)(fn)
            return fn

        return deco

    # --- the defaults behind the optional hooks
    def device_of(self, x: Any) -> Any:
        """The device of ``x``."""
        return self.device(x) if self.device is not None else array_api_compat.device(x)

    def host_array(self, x: Any) -> np.ndarray:
        """``x`` as a NumPy array on the host (a view where possible)."""
        if self.to_numpy is not None:
            return self.to_numpy(x)
        return _generic_to_numpy(x)

    def import_array(self, x: Any, device: Any = None) -> Any:
        """An array of any library as one of this backend's."""
        if self.from_array is not None:
            return self.from_array(x, device)
        xp = self.namespace_module()
        try:
            y = xp.from_dlpack(exportable(x))
        except Exception:  # a source DLPack cannot share (another device, read-only, ...)
            y = xp.asarray(to_numpy(x))
        return y if device is None else self.move(y, device)

    def move(self, x: Any, device: Any) -> Any:
        """``x`` (one of this backend's arrays) on ``device``."""
        if self.to_device is not None:
            return self.to_device(x, device)
        return array_api_compat.to_device(x, device)

    def namespace_module(self) -> Any:
        """The namespace of this backend's arrays, found from an empty array."""
        mod = _NAMESPACE_OF_NAME.get(self.name)
        if mod is None:
            mod = importlib.import_module(self.name)
            try:
                mod = array_api_compat.array_namespace(mod.asarray(0))
            except Exception:
                pass
            _NAMESPACE_OF_NAME[self.name] = mod
        return mod

    def float64_on(self, xp: Any, dev: Any) -> bool:
        """Whether float64 arrays can live on ``dev``."""
        if self.has_float64 is not None:
            return self.has_float64(dev)
        key = str(dev)
        hit = self._float64.get(key)
        if hit is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    hit = bool(xp.zeros((), dtype=xp.float64, device=dev).dtype == xp.float64)
                except Exception:
                    hit = False
            self._float64[key] = hit
        return hit


_NAMESPACE_OF_NAME: dict[str, Any] = {}


def _generic_to_numpy(x: Any) -> np.ndarray:
    try:
        return np.from_dlpack(x)
    except Exception:
        pass
    try:  # DLPack 1.0: ask the producer for a copy on the CPU
        return np.from_dlpack(x, device="cpu", copy=True)
    except Exception:
        return np.asarray(x)


def _numpy_from_array(x: Any, device: Any) -> np.ndarray:
    if device is not None and str(device) != "cpu":
        raise ValueError(f"NumPy arrays live on the host; got device={device!r}")
    if type(x) is np.ndarray:
        return x
    return to_numpy(x)


def _numpy_device(device: Any) -> None:
    if str(device) != "cpu":
        raise ValueError(f"NumPy arrays live on the host ('cpu'), not on {device!r}")


NUMPY = Backend(
    "numpy",
    _HOST_TYPES,
    namespace=lambda x: np,
    device=lambda x: "cpu",
    to_numpy=np.asarray,
    from_array=_numpy_from_array,
    to_device=lambda x, device: _numpy_from_array(x, device),
    has_float64=lambda dev: True,
    check_device=_numpy_device,
    aliases=("np",),
)

_by_type: dict[type, Backend] = {}
"""Registered array types (subclasses are found through the MRO)."""
_by_name: dict[str, Backend] = {}
_type_cache: dict[type, Backend] = {}
_loaded: set[str] = set()
_entry_points: dict[str, Any] | None = None


def register_backend(backend: Backend) -> Backend:
    """Teach anywrap an array library; a registration takes precedence over
    array-api-compat and over an earlier registration of the same types.

    Returns the backend, so that a module can keep it and route operations::

        TOY = register_backend(Backend("toy", (ToyArray,), namespace=lambda x: toy_xp))

        @TOY.route(anywrap.xp.sum_along)
        def _sum_along(x, axis): ...
    """
    if not backend.array_types:
        raise ValueError(f"register_backend: backend {backend.name!r} lists no array types")
    for tp in backend.array_types:
        _by_type[tp] = backend
    for name in (backend.name, *backend.aliases):
        _by_name[name] = backend
    _type_cache.clear()
    return backend


def register_namespace(array_type: type, factory: Callable[[Any], ModuleType]) -> Backend:
    """Shorthand for :func:`register_backend` with the defaults: teach anywrap
    the Array API namespace of ``array_type`` (and its subclasses).

    Example:
        >>> import numpy as np
        >>> from anywrap import xp
        >>> class Tagged2(np.ndarray): ...
        >>> _ = xp.register_namespace(Tagged2, lambda x: np)
        >>> xp.namespace(np.zeros(2).view(Tagged2)) is np
        True
    """
    top = array_type.__module__.split(".", 1)[0]
    return register_backend(Backend(top, (array_type,), namespace=factory))


for _tp in _HOST_TYPES:
    _by_type[_tp] = NUMPY
for _name in ("numpy", "np"):
    _by_name[_name] = NUMPY


def _entry_point_map() -> dict[str, Any]:
    global _entry_points
    if _entry_points is None:
        try:
            eps = metadata.entry_points(group=ENTRY_POINT_GROUP)
        except Exception:  # broken metadata must not break anywrap
            eps = ()  # type: ignore[assignment]
        _entry_points = {ep.name: ep for ep in eps}
    return _entry_points


def _load_lazy(top: str) -> bool:
    """Import the backend module declared for the top-level module ``top``, once."""
    if top in _loaded:
        return False
    _loaded.add(top)
    module = _CORE_LAZY.get(top)
    if module is not None:
        importlib.import_module(module)
        return True
    ep = _entry_point_map().get(top)
    if ep is not None:
        ep.load()
        return True
    return False


def _lookup(tp: type, x: Any) -> Backend:
    top = tp.__module__.split(".", 1)[0]
    for attempt in range(2):
        for base in tp.__mro__:
            found = _by_type.get(base)
            if found is not None:
                return found
        if attempt == 0 and not _load_lazy(top):
            break
    try:
        xp = array_api_compat.array_namespace(x)
    except TypeError:
        raise UnknownArrayTypeError(
            f"anywrap does not know the array type {tp.__module__}.{tp.__qualname__}. "
            "Register its Array API namespace with "
            f"`anywrap.xp.register_namespace({tp.__qualname__}, lambda x: <namespace module>)`, "
            "or a whole backend (conversions, compiler) with `anywrap.xp.register_backend`, "
            "or declare an entry point in the group 'anywrap.backends'."
        ) from None
    # array-api-compat knows it: a generic backend, named after its namespace.
    name = resolve_library(xp)
    generic = _by_name.get(name) or Backend(name, (tp,), namespace=_constant(xp))
    _by_type[tp] = generic
    _by_name.setdefault(name, generic)
    _NAMESPACE_OF_NAME.setdefault(name, xp)
    return generic


def _constant(xp: Any) -> Callable[[Any], Any]:
    def namespace_of(x: Any) -> Any:
        return xp

    return namespace_of


def backend_of(x: Any) -> Backend:
    """The :class:`Backend` of the array ``x``.

    Raises:
        UnknownArrayTypeError: for a type that is neither registered nor known
            to array-api-compat; the message shows the registration that fixes it.
    """
    tp = type(x)
    b = _type_cache.get(tp)
    if b is None:
        b = _type_cache[tp] = _lookup(tp, x)
        try:
            _by_namespace[id(b.namespace(x))] = b
        except Exception:  # a namespace that needs more than a type to be found
            pass
    return b


_by_namespace: dict[int, Backend] = {id(np): NUMPY}


def backend_of_namespace(xp: Any) -> Backend:
    """The :class:`Backend` whose arrays have the namespace ``xp``.

    Raises:
        ValueError: no backend is known for ``xp``.
    """
    b = _by_namespace.get(id(xp))
    if b is None:
        b = backend_named(xp)
        _by_namespace[id(xp)] = b
    return b


def backend_named(name: str | ModuleType) -> Backend:
    """The :class:`Backend` of a library given as a name (``"torch"``, ``"tf"``)
    or a module (``numpy``, ``jax.numpy``, ``array_api_compat.torch``).

    Raises:
        ValueError: no backend of that name is registered, declared or importable.
    """
    key = resolve_library(name)
    b = _by_name.get(key)
    if b is None and _load_lazy(key):
        b = _by_name.get(key)
    if b is None:
        try:
            module = importlib.import_module(key)
        except ImportError:
            known = sorted({*_by_name, *_CORE_LAZY, *_entry_point_map()} - {"jaxlib", "jnp"})
            raise ValueError(
                f"unknown array library {name!r}: expected one of {known}, or the import "
                "name of an installed Array API library"
            ) from None
        if not hasattr(module, "from_dlpack"):
            raise ValueError(f"{key!r} is not an array library (it has no from_dlpack)")
        b = _by_name[key] = Backend(key, (), namespace=_constant(module))
        _NAMESPACE_OF_NAME[key] = module
    return b


def resolve_library(lib: str | ModuleType) -> str:
    """The canonical name of a library given as a name, an alias or a module.

    Example:
        >>> import numpy as np
        >>> resolve_library(np), resolve_library("np"), resolve_library("array_api_strict")
        ('numpy', 'numpy', 'array_api_strict')
    """
    name = lib if isinstance(lib, str) else getattr(lib, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"expected a library name or module, got {lib!r}")
    name = name.removeprefix("array_api_compat.")
    b = _by_name.get(name)
    if b is not None:
        return b.name
    if name.startswith("anywrap.backends."):  # a namespace defined by a backend module
        name = name.removeprefix("anywrap.backends.").split(".", 1)[0]
    top = name.split(".", 1)[0]
    b = _by_name.get(top)
    if b is None and _load_lazy(top):
        b = _by_name.get(name) or _by_name.get(top)
    return b.name if b is not None else top


# ------------------------------------------------------------- per-array queries
_FAST_HOST = frozenset(
    {np.ndarray, float, int, bool, np.bool_, np.float64, np.float32, np.int64, np.int32}
)


def namespace(*arrays: Any) -> Any:
    """Return the Array API namespace shared by ``arrays``.

    NumPy arrays and Python scalars map to the ``numpy`` module itself, which
    follows the standard since NumPy 2.0 and is the fastest route on the host.
    Python scalars and ``None`` do not vote when an array is present.

    Raises:
        UnknownArrayTypeError: for a type that is neither registered nor known
            to array-api-compat; the message shows the registration that fixes it.
        TypeError: when arrays of different libraries are mixed, or none is given.
    """
    for x in arrays:  # the hot path on the host: only NumPy values and scalars
        if type(x) not in _FAST_HOST:
            break
    else:
        if arrays:
            return np
    found: Any = None
    scalar = False
    for x in arrays:
        if x is None:
            continue
        if isinstance(x, (float, int, bool)):
            scalar = True
            continue
        xp = backend_of(x).namespace(x)
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


def device(x: Any) -> Any:
    """The device ``x`` lives on (``'cpu'`` for NumPy arrays and Python scalars)."""
    if isinstance(x, _HOST_TYPES):
        return "cpu"
    return backend_of(x).device_of(x)


def to_numpy(x: Any) -> np.ndarray:
    """A host view or copy of any array, for checkpoints, reports and display.

    Never on the step path: for a device array this is a host sync.

    Example:
        >>> to_numpy([1.0, 2.0])
        array([1., 2.])
    """
    if type(x) is np.ndarray:
        return x
    if isinstance(x, (list, tuple, float, int, bool, np.generic)):
        return np.asarray(x)
    return backend_of(x).host_array(x)


def exportable(x: Any) -> Any:
    """``x`` ready for a DLPack export (a NumPy scalar becomes a 0-d array)."""
    if isinstance(x, np.generic):
        return np.asarray(x)
    if type(x) is np.ndarray:
        return x
    b = backend_of(x)
    return b.exportable(x) if b.exportable is not None else x


def is_on_host(x: Any) -> bool:
    """Whether ``x``'s memory is host memory (DLPack's kDLCPU), with no sync."""
    if isinstance(x, _HOST_TYPES):
        return True
    try:
        b = backend_of(x)
        if b.on_host is not None:
            return b.on_host(x)
        return bool(exportable(x).__dlpack_device__()[0] == 1)
    except Exception:
        return False


def library_name(x: Any) -> str:
    """The canonical name of ``x``'s library, e.g. ``'numpy'``, ``'jax'``, ``'torch'``."""
    try:
        return backend_of(x).name
    except UnknownArrayTypeError:
        return type(x).__module__.split(".", 1)[0]
