"""Zero-copy conversion between NumPy, JAX, PyTorch, CuPy, TensorFlow and any
Array API library, and the single-env wrappers built on it.

The ladder, per array (``to_library``):

1. Already the target library: returned as is (moved only if ``device=`` asks).
2. DLPack (``target.from_dlpack(x)``): zero-copy whenever source and target can
   share the buffer, which on the host is every pair among NumPy, JAX, PyTorch
   and TensorFlow. Device is preserved: a CUDA tensor becomes a CUDA JAX array.
3. The source cannot be shared as is (a read-only NumPy array into
   TensorFlow, a tensor that requires grad, a non-compact stride into JAX, or a
   device array into NumPy, which lives on the host): one copy, done by the
   source library.

The per-step path (:func:`converter`, which the wrappers hold) resolves each
source type once and, on the default device, takes the cheapest zero-copy
route for the common pairs: NumPy's view of a JAX array, ``torch.from_numpy``,
``Tensor.numpy()`` and a DLPack capsule for host JAX -> PyTorch. It shares the
same buffers as the ladder and falls back to it for anything else.

Then an explicit ``device=`` moves the result once. dtypes are preserved
(bool and integers included), with one exception imposed by JAX: without
``jax_enable_x64`` JAX cannot hold 64-bit values and narrows them to 32 bits
(it copies to do so; a warning says so once per dtype).

What to know, honestly:

* **Read-only views.** A NumPy view of a JAX (or TensorFlow) array is
  read-only, because those arrays are immutable. Gymnasium's single-env
  wrappers never write into observations or rewards, so they work on these
  views without a copy. Gymnasium's *vector* wrappers do write in place:
  ``VectorizeTransformReward.rewards`` (so vector ``ClipReward``) assigns
  ``rewards[i] = ...``, and ``VectorizeTransformObservation.observations``
  (so vector ``FlattenObservation``) stacks its result back into the input
  observation array whenever the transformed space equals the original one
  (``same_out``, e.g. flattening a 1-D ``Box``), and into ``info["final_obs"]``
  in SAME_STEP mode. The vector wrappers therefore always hand out writable
  rewards, terminations and truncations (a copy of ``num_envs`` values, only
  when the source is read-only), and ``writable=True`` does the same for
  observations and infos (a copy, only of read-only leaves).
* **PyTorch views of JAX arrays are writable**: PyTorch ignores the read-only
  flag. Writing into such a tensor changes the JAX array too; do not.
* **NumPy -> JAX** (and host PyTorch -> JAX) is zero-copy only for buffers
  aligned to 64 bytes (JAX's requirement on CPU) and larger than 64 KiB: below
  that, JAX's DLPack import costs more than a copy, so small arrays (actions,
  rewards) are copied. Integer and bool host scalars (discrete actions) are
  converted once per value and the immutable JAX array reused.
* **TensorFlow on GPU**: TensorFlow's DLPack import and export work for GPU
  tensors, but moving a tensor to a *different* device or library placement
  goes through TensorFlow's own copy, which for GPU tensors is known to stage
  through host memory. Converting TF GPU tensors to NumPy always copies to the
  host. TensorFlow is registered with anywrap from outside the core, through
  :mod:`anywrap.backends.tensorflow`.
* CuPy takes the same path where it is installed; it is never imported
  otherwise.

Example:
    >>> import numpy as np
    >>> from anywrap.convert import convert
    >>> tree = {"obs": np.zeros(3, dtype=np.float32), "mask": (np.ones(2, dtype=bool),)}
    >>> out = convert(tree, "numpy")
    >>> out["obs"] is tree["obs"], out["mask"][0].dtype
    (True, dtype('bool'))
"""

from __future__ import annotations

import importlib
import numbers
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from anywrap import xp as _xp

__all__ = [
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "convert",
    "converter",
    "library_of",
    "resolve_library",
    "to_library",
]

Array = Any

_ALIASES = {
    "np": "numpy",
    "numpy": "numpy",
    "jax": "jax",
    "jnp": "jax",
    "jax.numpy": "jax",
    "jaxlib": "jax",
    "torch": "torch",
    "pytorch": "torch",
    "tf": "tensorflow",
    "tensorflow": "tensorflow",
    "cupy": "cupy",
}
_KNOWN = ("numpy", "jax", "torch", "tensorflow", "cupy")


def resolve_library(lib: str | ModuleType) -> str:
    """The canonical name of a library given as a name or a module.

    Accepts ``"numpy"``, ``"np"``, ``"jax"``, ``"torch"``, ``"tf"``,
    ``"tensorflow"``, ``"cupy"``, the modules themselves (``numpy``,
    ``jax.numpy``, ``torch``, ``tensorflow``, their ``array_api_compat``
    wrappers), or the import name of any Array API library with ``from_dlpack``.

    Example:
        >>> import numpy as np
        >>> resolve_library(np), resolve_library("jnp"), resolve_library("array_api_strict")
        ('numpy', 'jax', 'array_api_strict')
    """
    name = lib if isinstance(lib, str) else getattr(lib, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"expected a library name or module, got {lib!r}")
    name = name.removeprefix("array_api_compat.")
    if name.startswith("anywrap.backends.tensorflow"):
        return "tensorflow"
    if name in _ALIASES:
        return _ALIASES[name]
    top = name.split(".", 1)[0]
    return _ALIASES.get(top, name)


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
        name = _xp.library_name(x)
        lib = _LIBRARY_OF_TYPE[tp] = _ALIASES.get(name, name)
    return lib


_LIBRARY_OF_TYPE: dict[type, str] = {}


# ------------------------------------------------------------------ one array
_warned_narrowing: set[str] = set()


def _is_array(x: Any) -> bool:
    return hasattr(x, "__dlpack__") or (hasattr(x, "shape") and hasattr(x, "dtype"))


def _unknown(x: Any, who: str) -> TypeError:
    tp = type(x)
    return _xp.UnknownArrayTypeError(
        f"{who}: cannot convert {_xp.describe(x)}: anywrap does not know the array type "
        f"{tp.__module__}.{tp.__qualname__}. Register its Array API namespace with "
        f"`anywrap.xp.register_namespace({tp.__qualname__}, lambda x: <namespace module>)`; "
        "the type must also implement __dlpack__ to be converted."
    )


def _host_numpy(x: Any) -> np.ndarray:
    """A NumPy copy of a device array, made by its own library."""
    lib = library_of(x)
    if lib == "torch":
        return x.detach().cpu().numpy()  # type: ignore[no-any-return]
    if lib == "cupy":
        return x.get()  # type: ignore[no-any-return]
    if lib == "tensorflow":
        return x.numpy()  # type: ignore[no-any-return]
    return np.asarray(x)


def _to_numpy(x: Any, device: Any) -> np.ndarray:
    if device is not None and str(device) != "cpu":
        raise ValueError(f"NumPy arrays live on the host; got device={device!r}")
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, np.generic):
        return np.asarray(x)
    lib = library_of(x)
    if lib == "torch":
        x = x.detach()
    try:
        return np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError):
        return _host_numpy(x)  # on a device: one copy to the host


def _to_torch(x: Any, device: Any) -> Any:
    import torch

    if not isinstance(x, torch.Tensor):
        if isinstance(x, np.generic):
            x = np.asarray(x)
        try:
            x = torch.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError, ValueError):
            x = torch.as_tensor(_host_numpy(x) if not isinstance(x, np.ndarray) else x.copy())
    if device is not None and not _xp.same_device(x.device, torch.device(device)):
        x = x.to(device)
    return x


_SMALL_HOST_TO_JAX = 64 * 1024
"""NumPy arrays up to this many bytes are copied into JAX: ``jax.dlpack.from_dlpack``
has a fixed cost (about 85 us on CPU) that exceeds copying them (about 25 us)."""


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside anywrap (for warnings)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("anywrap"):
        frame, level = frame.f_back, level + 1
    return level


def _jax_device(device: Any) -> Any:
    import jax

    if not isinstance(device, str):
        return device
    kind, _, index = device.partition(":")
    kind = {"cuda": "gpu", "rocm": "gpu"}.get(kind, kind)
    return jax.devices(kind)[int(index or 0)]


def _to_jax(x: Any, device: Any) -> Any:
    import jax

    if not isinstance(x, jax.Array):
        lib = library_of(x)
        if isinstance(x, np.generic):
            x = np.asarray(x)
        src_dtype = str(x.dtype).replace("torch.", "")
        if lib == "torch":
            x = x.detach()
        try:
            if isinstance(x, np.ndarray) and x.nbytes <= _SMALL_HOST_TO_JAX:
                y = jax.numpy.asarray(x)  # JAX's DLPack import costs more than this copy
            else:
                y = jax.dlpack.from_dlpack(x)
        except Exception:  # a stride JAX cannot share, or an unshareable source
            y = jax.numpy.asarray(np.ascontiguousarray(_host_numpy(x)))
        # Narrowed integers (actions, counts) are harmless; narrowed floats lose precision.
        if src_dtype == "float64" and str(y.dtype) != src_dtype and not _warned_narrowing:
            _warned_narrowing.add(src_dtype)
            warnings.warn(
                f"JAX holds {src_dtype} as {y.dtype} (jax_enable_x64 is off): the conversion "
                "narrowed and copied it. Set jax.config.update('jax_enable_x64', True) to keep it.",
                stacklevel=_caller_stacklevel(),
            )
        x = y
    if device is not None:
        dev = _jax_device(device)
        if not _xp.same_device(_xp.device(x), dev):
            x = jax.device_put(x, dev)
    return x


def _host_view(x: Any) -> np.ndarray | None:
    """A NumPy view of a host array (None for device arrays)."""
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.from_dlpack(x)
    except Exception:
        return None


def _to_tensorflow(x: Any, device: Any) -> Any:
    import tensorflow as tf

    import anywrap.backends.tensorflow  # noqa: F401  (registers the namespace)

    if not isinstance(x, tf.Tensor):
        if isinstance(x, np.generic):
            x = np.asarray(x)
        if library_of(x) == "torch":
            x = x.detach()
        try:
            host = _host_view(x)
            # TensorFlow (Eigen) aborts the process on buffers not aligned to 64 bytes.
            if host is not None and (host.ctypes.data % 64 or not host.flags.c_contiguous):
                x = tf.convert_to_tensor(np.ascontiguousarray(host))
            else:
                x = tf.experimental.dlpack.from_dlpack(x.__dlpack__())
        except Exception:  # read-only NumPy, a stride TF cannot share, ...
            src = x if isinstance(x, np.ndarray) else _host_numpy(x)
            x = tf.convert_to_tensor(src)
    if device is not None:
        with tf.device(str(device)):
            x = tf.identity(x)
    return x


def _to_cupy(x: Any, device: Any) -> Any:
    import cupy

    if not isinstance(x, cupy.ndarray):
        if isinstance(x, (np.ndarray, np.generic)):
            x = cupy.asarray(x)  # host -> device: one copy
        else:
            if library_of(x) == "torch":
                x = x.detach()
            x = cupy.from_dlpack(x)
    if device is not None:
        index = int(str(device).rpartition(":")[2] or 0)
        if x.device.id != index:
            with cupy.cuda.Device(index):
                x = cupy.asarray(x)
    return x


def _to_generic(name: str) -> Callable[[Any, Any], Any]:
    def convert_leaf(x: Any, device: Any) -> Any:
        module = importlib.import_module(name)
        if isinstance(x, np.generic):
            x = np.asarray(x)
        if library_of(x) == "torch":
            x = x.detach()
        y = module.from_dlpack(x)
        if device is not None:
            import array_api_compat

            y = array_api_compat.to_device(y, device)
        return y

    return convert_leaf


_CONVERTERS: dict[str, Callable[[Any, Any], Any]] = {
    "numpy": _to_numpy,
    "jax": _to_jax,
    "torch": _to_torch,
    "tensorflow": _to_tensorflow,
    "cupy": _to_cupy,
}


def _converter(to: str) -> Callable[[Any, Any], Any]:
    conv = _CONVERTERS.get(to)
    if conv is None:
        conv = _CONVERTERS[to] = _to_generic(to)
    return conv


def _check_known(x: Any, who: str) -> str:
    lib = library_of(x)
    if lib not in _KNOWN:
        try:
            _xp.namespace(x)
        except _xp.UnknownArrayTypeError:
            raise _unknown(x, who) from None
        if not hasattr(x, "__dlpack__"):
            raise _unknown(x, who)
    return lib


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

    Example:
        >>> import numpy as np
        >>> a = np.arange(3)
        >>> to_library(a, "numpy") is a
        True
    """
    name = resolve_library(to)
    _check_known(x, who)
    return _converter(name)(x, device)


def _writable(x: Any) -> Any:
    if isinstance(x, np.ndarray) and not x.flags.writeable:
        return x.copy()
    return x


# ------------------------------------------------------ fast leaves, per type
# Each function below is one (source library, target library) pair on the
# default device, with the checks that the general ladder makes on every call
# hoisted out of it. They fall back to the ladder for anything unusual.


def _numpy_of_jax(x: Any) -> np.ndarray:
    # A view of a host JAX buffer (read-only, no copy); a device array is copied,
    # as a NumPy target needs it on the host anyway. Cheaper than np.from_dlpack.
    return np.asarray(x)


def _numpy_of_torch(x: Any) -> np.ndarray:
    try:
        return x.detach().numpy()  # type: ignore[no-any-return]  # CPU: a view, no copy
    except (TypeError, RuntimeError):  # on a device, or a dtype NumPy lacks
        return _to_numpy(x, None)


def _torch_of_numpy(x: np.ndarray) -> Any:
    if x.flags.writeable:  # torch.from_numpy warns on read-only buffers: DLPack shares them
        import torch

        try:
            return torch.from_numpy(x)
        except (TypeError, ValueError, RuntimeError):  # negative strides, byte order, ...
            pass
    return _to_torch(x, None)


def _torch_of_jax(x: Any) -> Any:
    try:
        if x.__dlpack_device__()[0] == 1:  # kDLCPU: no stream to synchronise with
            from torch.utils.dlpack import from_dlpack

            return from_dlpack(x.__dlpack__())  # a capsule: skips torch's version probing
    except (BufferError, RuntimeError, TypeError, ValueError):
        pass
    return _to_torch(x, None)


def _identity(x: Any) -> Any:
    return x


_FAST_LEAVES: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("numpy", "numpy"): _identity,
    ("jax", "jax"): _identity,
    ("torch", "torch"): _identity,
    ("jax", "numpy"): _numpy_of_jax,
    ("torch", "numpy"): _numpy_of_torch,
    ("numpy", "torch"): _torch_of_numpy,
    ("jax", "torch"): _torch_of_jax,
}
"""Leaves for the default device (``device=None``); other pairs use the ladder."""

_JAX_CONSTANTS_MAX = 4096
_JAX_CONSTANT_RANGE = 1 << 16


class _Converter:
    """:func:`convert` for one target, device and writability, built once.

    Walking a tree costs one dict lookup per node: each type met is classified
    once (container, number, array of a known library) and its handler cached.
    A wrapper holds one converter per direction, so nothing is re-resolved per
    step.

    Integer and bool host scalars going to JAX (discrete actions) would each
    cost a JAX dispatch (about 30 us on CPU); they are converted once per
    (dtype, value) and the JAX array reused, which is safe because JAX arrays
    are immutable. A reused array that a jitted step donated (deleted) is
    replaced. At most 4096 values in [-65536, 65536) are kept.
    """

    __slots__ = ("_consts", "_leaves", "device", "to", "who", "writable")

    def __init__(self, to: str, device: Any = None, writable: bool = False, who: str = "") -> None:
        self.to = to
        self.device = device
        self.writable = writable and to == "numpy"
        self.who = who
        self._leaves: dict[type, Callable[[Any], Any]] = {}
        self._consts: dict[tuple[Any, ...], Any] = {}

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.to, self.device, self.writable, self.who))

    def __call__(self, v: Any) -> Any:
        leaf = self._leaves.get(type(v))
        if leaf is None:
            leaf = self._classify(v)
        return leaf(v)

    # --- classification (once per type)
    def _classify(self, v: Any) -> Callable[[Any], Any]:
        tp = type(v)
        leaf: Callable[[Any], Any]
        if v is None or isinstance(v, (str, bytes)):
            leaf = _identity
        elif isinstance(v, np.ndarray):
            leaf = self._ndarray_leaf()
        elif isinstance(v, numbers.Number) and not isinstance(v, np.generic):
            leaf = self._number
        elif isinstance(v, Mapping):
            leaf = self._dict if tp is dict else self._mapping
        elif isinstance(v, tuple):
            leaf = self._namedtuple if hasattr(tp, "_fields") else self._tuple
        elif isinstance(v, list):
            leaf = self._list
        elif not _is_array(v):
            return _identity  # not cached: any object may pass through
        else:
            lib = _check_known(v, self.who)  # raises for an unknown array type
            if isinstance(v, np.generic):
                leaf = self._numpy_scalar_leaf(tp)
            else:
                leaf = self._array_leaf(lib)
        self._leaves[tp] = leaf
        return leaf

    def _finish(self, leaf: Callable[[Any], Any]) -> Callable[[Any], Any]:
        if not self.writable:
            return leaf
        return lambda x: _writable(leaf(x))

    def _array_leaf(self, lib: str) -> Callable[[Any], Any]:
        device = self.device
        if self.to == "jax" and device is None and lib == "torch":
            return self._torch_to_jax
        fast = _FAST_LEAVES.get((lib, self.to))
        if fast is not None and (device is None or (self.to == "numpy" and str(device) == "cpu")):
            return self._finish(fast)
        conv = _converter(self.to)
        return self._finish(lambda x: conv(x, device))

    def _ndarray_leaf(self) -> Callable[[Any], Any]:
        if self.to == "jax":
            host: Callable[[Any], Any] = self._numpy_to_jax
        else:
            host = self._array_leaf("numpy")

        def leaf(x: np.ndarray) -> Any:
            if x.dtype.kind == "O":  # Gymnasium's final_obs: convert element by element
                out = np.empty(x.shape, dtype=object)
                for i, item in np.ndenumerate(x):
                    out[i] = self(item)
                return out
            return host(x)

        return leaf

    def _numpy_scalar_leaf(self, tp: type) -> Callable[[Any], Any]:
        if self.to == "jax" and issubclass(tp, (np.integer, np.bool_)):
            return lambda x: self._jax_constant(x.dtype, x.item(), x)
        host = self._ndarray_leaf()
        return lambda x: host(np.asarray(x))

    # --- containers and numbers
    def _number(self, v: Any) -> Any:
        return self(np.asarray(v))  # as Gymnasium: Python numbers become 0-d arrays

    def _dict(self, v: dict[Any, Any]) -> dict[Any, Any]:
        return {k: self(u) for k, u in v.items()}

    def _mapping(self, v: Mapping[Any, Any]) -> Any:
        items = {k: self(u) for k, u in v.items()}
        try:
            return type(v)(items)  # type: ignore[call-arg]
        except TypeError:
            return items

    def _namedtuple(self, v: Any) -> Any:
        return type(v)(*[self(u) for u in v])

    def _tuple(self, v: tuple[Any, ...]) -> tuple[Any, ...]:
        return type(v)([self(u) for u in v])

    def _list(self, v: list[Any]) -> list[Any]:
        return [self(u) for u in v]

    # --- into JAX
    def _numpy_to_jax(self, x: np.ndarray) -> Any:
        if x.ndim == 0 and x.dtype.kind in "biu":
            return self._jax_constant(x.dtype, x.item(), x)
        return _to_jax(x, self.device)

    def _torch_to_jax(self, x: Any) -> Any:
        if x.is_cpu and not x.requires_grad:
            if x.ndim == 0 and not x.dtype.is_floating_point and not x.dtype.is_complex:
                return self._jax_constant(x.dtype, x.item(), x)  # a host value: no sync
            if x.nbytes <= _SMALL_HOST_TO_JAX:  # copied, as small NumPy arrays are
                try:
                    host = x.numpy()
                except (TypeError, RuntimeError):  # a dtype NumPy lacks (bfloat16, ...)
                    pass
                else:
                    return _to_jax(host, None)
        return _to_jax(x, None)

    def _jax_constant(self, dtype: Any, value: Any, x: Any) -> Any:
        import jax

        key = (dtype, value, jax.config.jax_enable_x64)  # type: ignore[attr-defined]
        y = self._consts.get(key)
        if y is None or y.is_deleted():
            y = _to_jax(x, self.device)
            if -_JAX_CONSTANT_RANGE <= value < _JAX_CONSTANT_RANGE and (
                len(self._consts) < _JAX_CONSTANTS_MAX
            ):
                self._consts[key] = y
        return y


_CONVERTER_CACHE: dict[tuple[Any, ...], _Converter] = {}


def converter(
    to: str | ModuleType, device: Any = None, *, writable: bool = False, who: str = "convert"
) -> Callable[[Any], Any]:
    """A reusable :func:`convert` with its arguments bound (what the wrappers hold).

    Example:
        >>> import numpy as np
        >>> to_np = converter("numpy")
        >>> to_np({"x": 1.0})["x"]
        array(1.)
    """
    return _Converter(resolve_library(to), device, writable, who)


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
        >>> import collections, numpy as np
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
        return _Converter(name, device, writable, who)(tree)
    if conv is None:
        if len(_CONVERTER_CACHE) >= 64:
            _CONVERTER_CACHE.clear()
        conv = _CONVERTER_CACHE[key] = _Converter(name, device, writable, who)
    return conv(tree)


def _as_python(x: Any, cast: type) -> Any:
    """``float(x)`` or ``bool(x)``; for JAX, through its NumPy view (5x cheaper)."""
    if library_of(x) == "jax":
        h = np.asarray(x)
        if h.ndim == 0:
            return cast(h)
    return cast(x)


def _first_array(tree: Any) -> Any:
    if isinstance(tree, Mapping):
        tree = list(tree.values())
    if isinstance(tree, (tuple, list)):
        for v in tree:
            found = _first_array(v)
            if found is not None:
                return found
        return None
    if isinstance(tree, (np.generic, numbers.Number)):
        return np.asarray(tree)
    return tree if _is_array(tree) else None


# ------------------------------------------------------------------- wrappers
def target_of(
    owner: str, to: Any, target_xp: Any, device: Any, target_device: Any
) -> tuple[Any, Any]:
    """The target library and device from anywrap's (``to=``, ``device=``) or
    Gymnasium's (``target_xp``, ``target_device``) spelling, never both."""
    if to is not None and target_xp is not None:
        raise TypeError(f"{owner}: give `to=` or `target_xp`, not both")
    if device is not None and target_device is not None:
        raise TypeError(f"{owner}: give `device=` or `target_device`, not both")
    target = to if to is not None else target_xp
    if target is None:
        raise TypeError(f"{owner}: give the target library as `to=` (or target_xp)")
    return target, device if device is not None else target_device


class _Conversions:
    """What the single and vector conversion wrappers share: the env's library
    and device, learnt at the first reset, and the two directions of conversion.

    ``self._out`` converts the env's outputs to the target; ``self._in`` the
    user's inputs (actions, reset options) back to the env's library.
    """

    env: Any

    def _setup_conversion(
        self, target: Any, device: Any, env_xp: Any, env_device: Any, writable: bool, name: str
    ) -> None:
        self._target = resolve_library(target)
        self._target_device = device
        self._env_lib: str | None = None if env_xp is None else resolve_library(env_xp)
        self._env_device = env_device
        self._writable = writable
        self._name = name
        self._out = _Converter(self._target, device, writable, name)
        self._to_env: _Converter | None = None

    def _learn_env_library(self, obs: Any) -> None:
        if self._env_lib is not None:
            return
        leaf = _first_array(obs)
        if leaf is None:
            self._env_lib = "numpy"
            return
        self._env_lib = _check_known(leaf, self._name)
        if self._env_device is None and not _xp.is_host(leaf):
            dev = _xp.device(leaf)
            # Host devices need no move; a device array's actions go back to its device.
            self._env_device = None if "cpu" in str(dev).lower() else dev

    def _in(self, tree: Any) -> Any:
        conv = self._to_env
        if conv is None:
            if self._env_lib is None:
                raise RuntimeError(f"{self._name}: call reset() before step()")
            conv = self._to_env = _Converter(self._env_lib, self._env_device, who=self._name)
        return conv(tree)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset (options converted to the env's library) and convert obs and info."""
        if options and self._env_lib is not None:
            options = self._in(options)
        obs, info = self.env.reset(seed=seed, options=options)
        self._learn_env_library(obs)
        return self._out(obs), self._out(info)

    def render(self) -> Any:
        """The env's render output, converted to the target library."""
        return self._out(self.env.render())


class ArrayConversion(_Conversions, gym.Wrapper, gym.utils.RecordConstructorArgs):  # type: ignore[type-arg]
    """Convert an environment's outputs to another array library, and its inputs back.

    Observations, infos (nested) and render frames go to the target library;
    actions and reset options go back to the environment's library. Spaces are
    unchanged, as in Gymnasium's conversion wrappers. Conversion is zero-copy
    through DLPack wherever the source allows (see :mod:`anywrap.convert`).

    Two spellings are accepted: Gymnasium's
    ``ArrayConversion(env, env_xp, target_xp, env_device=None, target_device=None)``
    and anywrap's ``ArrayConversion(env, to=..., device=...)``, where the
    environment's library and device are read from the first observation.

    Rewards, terminations and truncations: by default (``scalars=True``) they
    are returned as Python ``float`` / ``bool`` as Gymnasium does (which reads
    the value, a host sync for device arrays); ``scalars=False`` keeps them as
    0-d arrays of the target library, with no sync.

    Example:
        >>> import gymnasium as gym, numpy as np
        >>> env = ArrayConversion(gym.make("CartPole-v1"), to="numpy")
        >>> obs, info = env.reset(seed=0)
        >>> obs.dtype, type(env.step(0)[1])
        (dtype('float32'), <class 'float'>)

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(
        self,
        env: gym.Env,  # type: ignore[type-arg]
        env_xp: str | ModuleType | None = None,
        target_xp: str | ModuleType | None = None,
        env_device: Any = None,
        target_device: Any = None,
        *,
        to: str | ModuleType | None = None,
        device: Any = None,
        scalars: bool = True,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; see the class docstring for the arguments."""
        target, device = target_of(type(self).__name__, to, target_xp, device, target_device)
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            env_xp=None if env_xp is None else resolve_library(env_xp),
            to=resolve_library(target),
            env_device=env_device,
            device=device,
            scalars=scalars,
            writable=writable,
        )
        gym.Wrapper.__init__(self, env)
        self._setup_conversion(target, device, env_xp, env_device, writable, type(self).__name__)
        self._scalars = scalars

    def step(self, action: Any) -> tuple[Any, SupportsFloat, Any, Any, dict[str, Any]]:
        """Convert the action to the env's library, step, and convert the results."""
        obs, reward, terminated, truncated, info = self.env.step(self._in(action))
        out = self._out
        if self._scalars:
            reward = _as_python(reward, float)
            terminated, truncated = _as_python(terminated, bool), _as_python(truncated, bool)
        else:
            reward, terminated, truncated = out(reward), out(terminated), out(truncated)
        return out(obs), reward, terminated, truncated, out(info)


class ToNumpy(ArrayConversion):
    """Convert an environment's arrays to NumPy (views of host memory where possible).

    A view of a JAX or TensorFlow array is read-only; ``writable=True`` copies
    such leaves (only those) for code that writes in place. Gymnasium's
    single-env wrappers do not write in place, so they work on the views.

    Example:
        >>> import gymnasium as gym
        >>> env = ToNumpy(gym.make("CartPole-v1"))
        >>> type(env.reset(seed=0)[0]).__name__
        'ndarray'
    """

    def __init__(
        self,
        env: gym.Env,  # type: ignore[type-arg]
        *,
        scalars: bool = True,
        writable: bool = False,
        env_xp: str | ModuleType | None = None,
        env_device: Any = None,
    ) -> None:
        """Wrap ``env``; ``scalars`` and ``writable`` as in :class:`ArrayConversion`."""
        super().__init__(
            env, env_xp, env_device=env_device, to="numpy", scalars=scalars, writable=writable
        )


class _ToLibrary(ArrayConversion):
    """A conversion to one fixed library (the subclass's ``_target``)."""

    _target = ""

    def __init__(
        self,
        env: gym.Env,  # type: ignore[type-arg]
        device: Any = None,
        *,
        scalars: bool = True,
        env_xp: str | ModuleType | None = None,
        env_device: Any = None,
    ) -> None:
        """Wrap ``env``; arrays go to ``device`` if given (default: where they are)."""
        super().__init__(
            env, env_xp, env_device=env_device, to=self._target, device=device, scalars=scalars
        )


class ToTorch(_ToLibrary):
    """Convert an environment's arrays to PyTorch tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, torch
        >>> env = ToTorch(gym.make("CartPole-v1"))
        >>> type(env.reset(seed=0)[0])
        <class 'torch.Tensor'>
    """

    _target = "torch"


class ToJax(_ToLibrary):
    """Convert an environment's arrays to JAX arrays, on ``device`` if given
    (a ``jax.Device`` or ``"gpu:0"``).

    Example:
        >>> import gymnasium as gym, jax
        >>> env = ToJax(gym.make("CartPole-v1"))
        >>> isinstance(env.reset(seed=0)[0], jax.Array)
        True
    """

    _target = "jax"


class ToTensorFlow(_ToLibrary):
    """Convert an environment's arrays to TensorFlow tensors, on ``device`` if given
    (e.g. ``"/GPU:0"``).

    Example:
        >>> import gymnasium as gym, tensorflow as tf
        >>> env = ToTensorFlow(gym.make("CartPole-v1"))
        >>> isinstance(env.reset(seed=0)[0], tf.Tensor)
        True
    """

    _target = "tensorflow"


class JaxToTorch(ArrayConversion):
    """Gymnasium's ``JaxToTorch(env, device=None)``: a JAX env seen through PyTorch.

    Example:
        >>> env = JaxToTorch(gym.make("phys2d/CartPole-v1"))  # doctest: +SKIP
    """

    def __init__(self, env: gym.Env, device: Any = None) -> None:  # type: ignore[type-arg]
        """Wrap the JAX environment ``env``; tensors go to ``device`` if given."""
        super().__init__(env, env_xp="jax", to="torch", device=device)


class JaxToNumpy(ArrayConversion):
    """Gymnasium's ``JaxToNumpy(env)``: a JAX env seen through NumPy.

    Example:
        >>> env = JaxToNumpy(gym.make("phys2d/CartPole-v1"))  # doctest: +SKIP
    """

    def __init__(self, env: gym.Env) -> None:  # type: ignore[type-arg]
        """Wrap the JAX environment ``env``."""
        super().__init__(env, env_xp="jax", to="numpy")


class NumpyToTorch(ArrayConversion):
    """Gymnasium's ``NumpyToTorch(env, device=None)``: a NumPy env seen through PyTorch.

    Example:
        >>> env = NumpyToTorch(gym.make("CartPole-v1"))  # doctest: +SKIP
    """

    def __init__(self, env: gym.Env, device: Any = None) -> None:  # type: ignore[type-arg]
        """Wrap the NumPy environment ``env``; tensors go to ``device`` if given."""
        super().__init__(env, env_xp="numpy", to="torch", device=device)
