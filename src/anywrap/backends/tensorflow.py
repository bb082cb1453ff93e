"""TensorFlow backend, registered through the public extension path only (an entry point
of the group ``anywrap.backends``, imported the first time a ``tf.Tensor`` is met). No
global TensorFlow setting changes; transforms run eagerly (``tf.function`` would retrace
for every new Python scalar); host tensors are shared through DLPack."""

from __future__ import annotations

import builtins
import contextlib
from typing import Any

import numpy as np
import tensorflow as tf

from anywrap import xp as _xp
from anywrap.backends import _on_host
from anywrap.xp import random as _random

__all__ = ["TensorFlowNamespace", "namespace"]


def _on(device: Any) -> Any:
    return contextlib.nullcontext() if device is None else tf.device(str(device))


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


def _made(fn: Any, default: Any = None) -> Any:
    """A creation function (``zeros``, ``ones_like``, ...) on ``device``."""

    def make(self: Any, *args: Any, dtype: Any = None, device: Any = None, **kw: Any) -> Any:
        with _on(device):
            return fn(*args, **kw, dtype=_dtype(dtype) or default)

    return make


def _promoted(fn: Any) -> Any:
    """A binary function over operands of one dtype, promoted as NumPy would."""
    return lambda self, x1, x2, /: fn(*_promote(x1, x2))


def _logical(fn: Any) -> Any:
    return lambda self, *xs: fn(*(_tensor(x) for x in xs))


def _floating(fn: Any) -> Any:
    """A rounding function, which leaves integers as they are."""
    return lambda self, x, /: x if x.dtype.is_integer else fn(x)


class TensorFlowNamespace:
    """An Array-API-style namespace over ``tf.Tensor`` (the subset anywrap uses; the
    standard's signatures).

    Example:
        >>> import tensorflow as tf
        >>> from anywrap import xp
        >>> ns = xp.namespace(tf.zeros(2))
        >>> ns is namespace, float(ns.var(ns.asarray([1.0, 3.0])))
        (True, 1.0)
    """

    __name__ = "anywrap.backends.tensorflow.namespace"

    bool = tf.bool
    int8, int16, int32, int64 = tf.int8, tf.int16, tf.int32, tf.int64
    uint8, uint16, uint32, uint64 = tf.uint8, tf.uint16, tf.uint32, tf.uint64
    float16, float32, float64 = tf.float16, tf.float32, tf.float64
    complex64, complex128 = tf.complex64, tf.complex128
    e, pi, inf, nan = np.e, np.pi, np.inf, np.nan

    def __repr__(self):
        return f"<namespace {self.__name__}>"

    def asarray(self, obj, /, *, dtype=None, device=None, copy=None):
        dt = _dtype(dtype)
        if hasattr(obj, "__dlpack__") and not isinstance(obj, (tf.Tensor, np.ndarray)):
            obj = self.from_dlpack(obj)
        if isinstance(obj, tf.Tensor):
            t = obj if dt is None or obj.dtype == dt else tf.cast(obj, dt)
        else:
            t = tf.convert_to_tensor(obj, dtype=dt)
        if device is not None or copy:
            with _on(device):
                t = tf.identity(t)
        return t

    def from_dlpack(self, x, /, *, device=None, copy=None):
        return self.asarray(tf.experimental.dlpack.from_dlpack(x.__dlpack__()), device=device)

    zeros, ones = _made(tf.zeros, tf.float32), _made(tf.ones, tf.float32)
    zeros_like, ones_like = _made(tf.zeros_like), _made(tf.ones_like)

    def full(self, shape, fill_value, *, dtype=None, device=None):
        with _on(device):
            dt = _dtype(dtype) or tf.convert_to_tensor(fill_value).dtype
            return tf.fill(shape, tf.constant(fill_value, dtype=dt))

    def arange(self, start, /, stop=None, step=1, *, dtype=None, device=None):
        if stop is None:
            start, stop = 0, start
        with _on(device):
            t = tf.range(start, stop, step)
            return t if dtype is None else tf.cast(t, _dtype(dtype))

    def astype(self, x, dtype, /, *, copy=True, device=None):
        dt = _dtype(dtype)
        return x if x.dtype == dt else tf.cast(x, dt)

    def isdtype(self, dtype, kind):
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

    def finfo(self, dtype):
        return np.finfo(tf.as_dtype(dtype).as_numpy_dtype)

    def where(self, condition, x1, x2, /):
        return tf.where(_tensor(condition), *_promote(x1, x2))

    def clip(self, x, /, min=None, max=None):
        if min is not None:
            x = self.maximum(x, min)
        return x if max is None else self.minimum(x, max)

    maximum, minimum = _promoted(tf.maximum), _promoted(tf.minimum)
    matmul = _promoted(tf.linalg.matmul)
    floor, round = _floating(tf.floor), _floating(tf.round)
    sqrt, square = staticmethod(tf.sqrt), staticmethod(tf.square)
    mean, broadcast_to = staticmethod(tf.reduce_mean), staticmethod(tf.broadcast_to)
    matrix_transpose = staticmethod(tf.linalg.matrix_transpose)

    def isfinite(self, x, /):
        x = _tensor(x)
        return tf.math.is_finite(x) if x.dtype.is_floating else tf.ones_like(x, dtype=tf.bool)

    logical_and, logical_or = _logical(tf.logical_and), _logical(tf.logical_or)
    logical_not = _logical(tf.logical_not)

    def sum(self, x, /, *, axis=None, dtype=None, keepdims=False):
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.int32)
        if dtype is not None:
            x = tf.cast(x, _dtype(dtype))
        return tf.reduce_sum(x, axis=axis, keepdims=keepdims)

    def var(self, x, /, *, axis=None, correction=0.0, keepdims=False):
        v = tf.math.reduce_variance(x, axis=axis, keepdims=keepdims)
        if correction:
            n = tf.size(x) if axis is None else tf.reduce_prod(tf.gather(tf.shape(x), axis))
            n = tf.cast(n, v.dtype)
            v = v * n / (n - correction)
        return v

    def all(self, x, /, *, axis=None, keepdims=False):
        return tf.reduce_all(tf.cast(x, tf.bool), axis=axis, keepdims=keepdims)

    def reshape(self, x, /, shape, *, copy=None):
        return tf.reshape(x, shape)

    def expand_dims(self, x, /, *, axis=0):
        return tf.expand_dims(x, axis)

    def permute_dims(self, x, /, axes):
        return tf.transpose(x, axes)

    def concat(self, arrays, /, *, axis=0):
        ts = _promote(*arrays)
        if axis is None:
            ts, axis = [tf.reshape(t, (-1,)) for t in ts], 0
        return tf.concat(ts, axis)

    def stack(self, arrays, /, *, axis=0):
        return tf.stack(_promote(*arrays), axis)

    def take(self, x, indices, /, *, axis=None):
        if axis is None:
            x, axis = tf.reshape(x, (-1,)), 0
        return tf.gather(x, indices, axis=axis)

    def flip(self, x, /, *, axis=None):
        return tf.reverse(x, axis=list(range(len(x.shape))) if axis is None else [axis])

    def cumulative_sum(self, x, /, *, axis=None, dtype=None, include_initial=False):
        axis = 0 if axis is None else axis
        if dtype is not None:
            x = tf.cast(x, _dtype(dtype))
        out = tf.math.cumsum(x, axis=axis)
        if include_initial:
            out = tf.concat([tf.zeros_like(tf.gather(out, [0], axis=axis)), out], axis=axis)
        return out

    def searchsorted(self, x1, x2, /, *, side="left", sorter=None):
        if sorter is not None:
            x1 = tf.gather(x1, sorter)
        x2 = _tensor(x2, x1)
        flat = tf.reshape(x2, (1, -1))
        idx = tf.searchsorted(x1[None, :], tf.cast(flat, x1.dtype), side=side, out_type=tf.int64)
        return tf.reshape(idx, tf.shape(x2))


namespace = TensorFlowNamespace()
"""The namespace registered for ``tf.Tensor``."""


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, tf.Tensor):
        try:
            host = _xp.to_numpy(x) if _on_host(x) else None
            # TensorFlow (Eigen) aborts the process on buffers not aligned to 64 bytes.
            if host is not None and (host.ctypes.data % 64 or not host.flags.c_contiguous):
                x = tf.convert_to_tensor(np.array(host, order="C"))  # a copy; 0-d stays 0-d
            else:
                x = tf.experimental.dlpack.from_dlpack(x.__dlpack__())
        except Exception:  # read-only NumPy, a stride TensorFlow cannot share, ...
            x = tf.convert_to_tensor(_xp.to_numpy(x))
    return x if device is None else namespace.asarray(x, device=device)


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


# Random draws (AddWhiteNoise, ObstructView) from TensorFlow's own counter-based generator,
# made on the frames' device: the same distributions as NumPy's, other draws.
@_random.new_key.register(tf.Tensor)
def _new_key(like: Any, seed: int) -> Any:
    with _on(like.device or None):
        return tf.random.Generator.from_seed(seed)


@_random.uniform.register(tf.random.Generator)
def _uniform(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    return key, key.uniform(shape, dtype=tf.float32)


_random.key_data.register(tf.random.Generator)(lambda key: tf.identity(key.state))


@_random.key_from_data.register(tf.random.Generator)
def _key_from_data(key: Any, data: Any) -> Any:
    return tf.random.Generator.from_state(tf.cast(_tensor(data), tf.int64), alg=key.algorithm)
