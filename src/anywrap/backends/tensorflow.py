"""TensorFlow backend, registered through anywrap's public extension path only.

TensorFlow tensors do not speak the Array API, and array-api-compat does not
wrap them. This module adds a small Array-API-style namespace,
:data:`namespace` (an instance of :class:`TensorFlowNamespace`), holding what
anywrap's transforms use, with the DLPack conversions, and registers them
with ``anywrap.xp.register_backend``, exactly as an outside package would.
anywrap's ``pyproject.toml`` declares it as an entry point of the group
``anywrap.backends``, so it is imported lazily, the first time a
``tf.Tensor`` (or the name ``"tensorflow"``) is met.

Two caveats:

* **Type promotion.** TensorFlow's operators refuse to mix dtypes
  (``float64 + float32`` raises). The transforms cast explicitly wherever
  dtypes meet (as the Array API standard asks), so this module changes no
  global TensorFlow setting.
* **No compiler.** ``tf.function`` retraces for every new Python scalar (the
  wall-clock time and the flags the shells pass), so transforms run eagerly
  on TensorFlow; no ``anywrap.xp.jit`` registration is made.

DLPack with TensorFlow: host tensors are shared zero-copy with NumPy, JAX and
PyTorch in both directions. For GPU tensors, TensorFlow's DLPack export and
import keep the data on the GPU, but TensorFlow's device-to-device and
GPU-to-NumPy moves are known to stage through host memory.

Example:
    >>> import tensorflow as tf
    >>> from anywrap import xp
    >>> import anywrap.backends.tensorflow as tfb
    >>> xp.namespace(tf.zeros(2)) is tfb.namespace, xp.library_name(tf.zeros(2))
    (True, 'tensorflow')
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from anywrap import xp as _xp

__all__ = ["TensorFlowNamespace", "namespace"]

_tnp = tf.experimental.numpy


@contextlib.contextmanager
def _on(device: Any) -> Iterator[None]:
    if device is None:
        yield
    else:
        with tf.device(str(device)):
            yield


def _dtype(dtype: Any) -> Any:
    return None if dtype is None else tf.as_dtype(dtype)


def _tensor(x: Any, like: Any = None) -> Any:
    """``x`` as a tensor; a Python scalar takes the dtype of ``like``."""
    if isinstance(x, tf.Tensor):
        return x
    if like is not None and isinstance(x, (bool, int, float)):
        return tf.constant(x, dtype=like.dtype)
    return tf.convert_to_tensor(x)


def _promote(*xs: Any) -> list[Any]:
    """Tensors of one dtype, promoted as NumPy would (Python scalars are weak)."""
    like = next((x for x in xs if isinstance(x, tf.Tensor)), None)
    ts = [_tensor(x, like) for x in xs]
    dtypes = {t.dtype for t in ts}
    if len(dtypes) > 1:
        dt = tf.as_dtype(np.result_type(*(d.as_numpy_dtype for d in dtypes)))
        ts = [t if t.dtype == dt else tf.cast(t, dt) for t in ts]
    return ts


class TensorFlowNamespace:
    """An Array-API-style namespace over ``tf.Tensor`` (the subset anywrap uses).

    Example:
        >>> from anywrap.backends.tensorflow import namespace as xp
        >>> float(xp.var(xp.asarray([1.0, 3.0])))
        1.0
    """

    __name__ = "anywrap.backends.tensorflow.namespace"

    bool = tf.bool
    int8, int16, int32, int64 = tf.int8, tf.int16, tf.int32, tf.int64
    uint8, uint16, uint32, uint64 = tf.uint8, tf.uint16, tf.uint32, tf.uint64
    float16, float32, float64 = tf.float16, tf.float32, tf.float64
    complex64, complex128 = tf.complex64, tf.complex128
    e, pi, inf, nan = np.e, np.pi, np.inf, np.nan

    def __repr__(self) -> str:
        return f"<namespace {self.__name__}>"

    # --- creation
    def asarray(
        self, obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None
    ) -> Any:
        """A tensor from ``obj``, cast to ``dtype`` and placed on ``device`` if given."""
        dt = _dtype(dtype)
        if isinstance(obj, tf.Tensor):
            t = obj if dt is None or obj.dtype == dt else tf.cast(obj, dt)
        elif hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
            t = self.from_dlpack(obj)
            t = t if dt is None or t.dtype == dt else tf.cast(t, dt)
        else:
            t = tf.convert_to_tensor(obj, dtype=dt)
        if device is not None or copy:
            with _on(device):
                t = tf.identity(t)
        return t

    def from_dlpack(self, x: Any, /, *, device: Any = None, copy: Any = None) -> Any:
        """A tensor sharing ``x``'s memory through DLPack."""
        t = tf.experimental.dlpack.from_dlpack(x.__dlpack__())
        return self.asarray(t, device=device) if device is not None else t

    def zeros(self, shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
        """Zeros of ``shape``."""
        with _on(device):
            return tf.zeros(shape, dtype=_dtype(dtype) or tf.float32)

    def ones(self, shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
        """Ones of ``shape``."""
        with _on(device):
            return tf.ones(shape, dtype=_dtype(dtype) or tf.float32)

    def full(self, shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
        """``fill_value`` repeated to ``shape``."""
        with _on(device):
            dt = _dtype(dtype) or tf.convert_to_tensor(fill_value).dtype
            return tf.fill(shape, tf.constant(fill_value, dtype=dt))

    def zeros_like(self, x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
        """Zeros shaped like ``x``."""
        with _on(device):
            return tf.zeros_like(x, dtype=_dtype(dtype))

    def ones_like(self, x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
        """Ones shaped like ``x``."""
        with _on(device):
            return tf.ones_like(x, dtype=_dtype(dtype))

    def full_like(
        self, x: Any, fill_value: Any, /, *, dtype: Any = None, device: Any = None
    ) -> Any:
        """``fill_value`` shaped like ``x``."""
        return self.full(tuple(x.shape), fill_value, dtype=dtype or x.dtype, device=device)

    def arange(
        self,
        start: Any,
        /,
        stop: Any = None,
        step: Any = 1,
        *,
        dtype: Any = None,
        device: Any = None,
    ) -> Any:
        """``start, start + step, ...`` below ``stop`` (int32 for int bounds, else ``dtype``)."""
        if stop is None:
            start, stop = 0, start
        with _on(device):
            t = tf.range(start, stop, step)
            return t if dtype is None else tf.cast(t, _dtype(dtype))

    # --- dtypes
    def astype(
        self, x: Any, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None
    ) -> Any:
        """``x`` cast to ``dtype``."""
        dt = _dtype(dtype)
        return x if x.dtype == dt else tf.cast(x, dt)

    def result_type(self, *arrays_and_dtypes: Any) -> Any:
        """The promoted dtype, by NumPy's rules (which agree with the standard's)."""
        np_types = [
            (a.dtype if hasattr(a, "dtype") else tf.as_dtype(a)).as_numpy_dtype
            for a in arrays_and_dtypes
        ]
        return tf.as_dtype(np.result_type(*np_types))

    def isdtype(self, dtype: Any, kind: Any) -> builtins.bool:
        """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of them)."""
        if isinstance(kind, tuple):
            return builtins.any(self.isdtype(dtype, k) for k in kind)
        dt = tf.as_dtype(dtype)
        if not isinstance(kind, str):
            return builtins.bool(dt == tf.as_dtype(kind))
        checks = {
            "bool": dt == tf.bool,
            "signed integer": dt.is_integer and not dt.is_unsigned,
            "unsigned integer": dt.is_integer and dt.is_unsigned,
            "integral": dt.is_integer,
            "real floating": dt.is_floating,
            "complex floating": dt.is_complex,
            "numeric": dt.is_integer or dt.is_floating or dt.is_complex,
        }
        if kind not in checks:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return builtins.bool(checks[kind])

    def finfo(self, dtype: Any) -> Any:
        """Machine limits of a float dtype (NumPy's ``finfo``)."""
        return np.finfo(tf.as_dtype(dtype).as_numpy_dtype)

    def iinfo(self, dtype: Any) -> Any:
        """Machine limits of an integer dtype (NumPy's ``iinfo``)."""
        return np.iinfo(tf.as_dtype(dtype).as_numpy_dtype)

    # --- element-wise
    def where(self, condition: Any, x1: Any, x2: Any, /) -> Any:
        """``x1`` where ``condition`` else ``x2``, broadcast and promoted."""
        a, b = _promote(x1, x2)
        return tf.where(_tensor(condition), a, b)

    def clip(self, x: Any, /, min: Any = None, max: Any = None) -> Any:
        """``x`` limited to ``[min, max]`` (either may be ``None``)."""
        if min is not None:
            x = self.maximum(x, min)
        if max is not None:
            x = self.minimum(x, max)
        return x

    def maximum(self, x1: Any, x2: Any, /) -> Any:
        """Element-wise maximum."""
        return tf.maximum(*_promote(x1, x2))

    def minimum(self, x1: Any, x2: Any, /) -> Any:
        """Element-wise minimum."""
        return tf.minimum(*_promote(x1, x2))

    def sqrt(self, x: Any, /) -> Any:
        """Element-wise square root."""
        return tf.sqrt(x)

    def square(self, x: Any, /) -> Any:
        """Element-wise square."""
        return tf.square(x)

    def abs(self, x: Any, /) -> Any:
        """Element-wise absolute value."""
        return tf.abs(x)

    def exp(self, x: Any, /) -> Any:
        """Element-wise exponential."""
        return tf.exp(x)

    def log(self, x: Any, /) -> Any:
        """Element-wise natural logarithm."""
        return tf.math.log(x)

    def sign(self, x: Any, /) -> Any:
        """Element-wise sign."""
        return tf.sign(x)

    def floor(self, x: Any, /) -> Any:
        """Element-wise floor."""
        return x if x.dtype.is_integer else tf.floor(x)

    def ceil(self, x: Any, /) -> Any:
        """Element-wise ceiling."""
        return x if x.dtype.is_integer else tf.math.ceil(x)

    def round(self, x: Any, /) -> Any:
        """Round half to even, as NumPy and the Array API do."""
        return x if x.dtype.is_integer else tf.round(x)

    def isfinite(self, x: Any, /) -> Any:
        """Whether each element is finite (always True for integers and bools)."""
        x = _tensor(x)
        if x.dtype.is_floating:
            return tf.math.is_finite(x)
        return tf.ones_like(x, dtype=tf.bool)

    def isnan(self, x: Any, /) -> Any:
        """Whether each element is NaN."""
        x = _tensor(x)
        return tf.math.is_nan(x) if x.dtype.is_floating else tf.zeros_like(x, dtype=tf.bool)

    def logical_and(self, x1: Any, x2: Any, /) -> Any:
        """Element-wise AND of bools."""
        return tf.logical_and(_tensor(x1), _tensor(x2))

    def logical_or(self, x1: Any, x2: Any, /) -> Any:
        """Element-wise OR of bools."""
        return tf.logical_or(_tensor(x1), _tensor(x2))

    def logical_not(self, x: Any, /) -> Any:
        """Element-wise NOT of bools."""
        return tf.logical_not(_tensor(x))

    # --- reductions
    def sum(
        self, x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False
    ) -> Any:
        """Sum over ``axis`` (bools are summed as int32)."""
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.int32)
        if dtype is not None:
            x = tf.cast(x, _dtype(dtype))
        return tf.reduce_sum(x, axis=axis, keepdims=keepdims)

    def mean(self, x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
        """Arithmetic mean over ``axis``."""
        return tf.reduce_mean(x, axis=axis, keepdims=keepdims)

    def var(
        self,
        x: Any,
        /,
        *,
        axis: Any = None,
        correction: float = 0.0,
        keepdims: builtins.bool = False,
    ) -> Any:
        """Variance over ``axis``; ``correction=0`` is the population variance."""
        v = tf.math.reduce_variance(x, axis=axis, keepdims=keepdims)
        if correction:
            n = tf.size(x) if axis is None else tf.reduce_prod(tf.gather(tf.shape(x), axis))
            n = tf.cast(n, v.dtype)
            v = v * n / (n - correction)
        return v

    def all(self, x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
        """Whether every element along ``axis`` is true."""
        return tf.reduce_all(tf.cast(x, tf.bool), axis=axis, keepdims=keepdims)

    def any(self, x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
        """Whether some element along ``axis`` is true."""
        return tf.reduce_any(tf.cast(x, tf.bool), axis=axis, keepdims=keepdims)

    # --- shape and indexing
    def reshape(self, x: Any, /, shape: Sequence[int], *, copy: Any = None) -> Any:
        """``x`` with a new shape (``-1`` infers one dimension)."""
        return tf.reshape(x, shape)

    def expand_dims(self, x: Any, /, *, axis: int = 0) -> Any:
        """``x`` with a new axis of length one."""
        return tf.expand_dims(x, axis)

    def squeeze(self, x: Any, /, axis: Any) -> Any:
        """``x`` without the length-one ``axis``."""
        return tf.squeeze(x, axis)

    def broadcast_to(self, x: Any, /, shape: Sequence[int]) -> Any:
        """``x`` broadcast to ``shape``."""
        return tf.broadcast_to(x, shape)

    def concat(self, arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
        """Arrays joined along ``axis`` (flattened first when ``axis`` is None)."""
        ts = _promote(*arrays)
        if axis is None:
            ts, axis = [tf.reshape(t, (-1,)) for t in ts], 0
        return tf.concat(ts, axis)

    def stack(self, arrays: Sequence[Any], /, *, axis: int = 0) -> Any:
        """Arrays stacked along a new ``axis``."""
        return tf.stack(_promote(*arrays), axis)

    def take(self, x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
        """Elements of ``x`` at ``indices`` along ``axis`` (``x`` flattened if None)."""
        if axis is None:
            x, axis = tf.reshape(x, (-1,)), 0
        return tf.gather(x, indices, axis=axis)

    def flip(self, x: Any, /, *, axis: Any = None) -> Any:
        """``x`` with the order of elements along ``axis`` reversed (all axes if None)."""
        axes = list(range(len(x.shape))) if axis is None else [axis]
        return tf.reverse(x, axis=axes)

    def cumulative_sum(
        self,
        x: Any,
        /,
        *,
        axis: int | None = None,
        dtype: Any = None,
        include_initial: builtins.bool = False,
    ) -> Any:
        """Running sum along ``axis`` (the only axis of a 1-D ``x`` by default)."""
        if axis is None:
            axis = 0
        if dtype is not None:
            x = tf.cast(x, _dtype(dtype))
        out = tf.math.cumsum(x, axis=axis)
        if include_initial:
            out = tf.concat([tf.zeros_like(tf.gather(out, [0], axis=axis)), out], axis=axis)
        return out

    def searchsorted(self, x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Any:
        """Insertion indices of ``x2`` into the sorted 1-D ``x1``."""
        if sorter is not None:
            x1 = tf.gather(x1, sorter)
        x2 = _tensor(x2, x1)
        flat = tf.reshape(x2, (1, -1))
        idx = tf.searchsorted(x1[None, :], tf.cast(flat, x1.dtype), side=side, out_type=tf.int64)
        return tf.reshape(idx, tf.shape(x2))

    def argsort(
        self,
        x: Any,
        /,
        *,
        axis: int = -1,
        descending: builtins.bool = False,
        stable: builtins.bool = True,
    ) -> Any:
        """Indices that sort ``x`` along ``axis`` (stable: ties keep their order)."""
        return tf.argsort(
            x, axis=axis, direction="DESCENDING" if descending else "ASCENDING", stable=True
        )


namespace = TensorFlowNamespace()
"""The namespace registered for ``tf.Tensor``."""


def _on_host(x: Any) -> bool:
    try:
        return bool(x.__dlpack_device__()[0] == 1)
    except Exception:
        return False


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, tf.Tensor):
        try:
            host = _xp.to_numpy(x) if _on_host(x) else None
            # TensorFlow (Eigen) aborts the process on buffers not aligned to 64 bytes.
            if host is not None and (host.ctypes.data % 64 or not host.flags.c_contiguous):
                x = tf.convert_to_tensor(np.ascontiguousarray(host))
            else:
                x = tf.experimental.dlpack.from_dlpack(x.__dlpack__())
        except Exception:  # read-only NumPy, a stride TensorFlow cannot share, ...
            x = tf.convert_to_tensor(_xp.to_numpy(x))
    if device is None:
        return x
    with tf.device(str(device)):
        return tf.identity(x)


_xp.register_backend(
    tf.Tensor,
    namespace=namespace,
    name="tensorflow",
    device=lambda x: x.device or "cpu",
    from_array=_from_array,
    aliases=("tf",),
)
# Statistics learn from values: a GradientTape does not follow them (docs/guide/gradients.md).
_xp.stop_gradient.register(tf.Tensor)(tf.stop_gradient)
