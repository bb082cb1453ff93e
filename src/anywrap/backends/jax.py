"""The JAX backend, registered the first time a JAX array (or the name "jax") is met:
``jax.jit``, ``lax.cond``, host imports and faster XLA forms of the routed formulas.
Every route is registered for ``jax.core.Tracer`` too (the values inside ``jit``).

Example:
    >>> import jax.numpy as jnp
    >>> from anywrap import xp
    >>> xp.library_name(jnp.zeros(2)), xp.namespace(jnp.zeros(2)) is jnp
    ('jax', True)
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from anywrap import xp
from anywrap.backends import _on_host
from anywrap.xp import images, random

TYPES = (jax.Array, jax.core.Tracer)

SMALL_HOST_COPY = 64 * 1024
"""Host arrays up to this many bytes are copied into JAX, not shared through DLPack, whose
fixed cost is higher (``python -m benchmarks.suite.calibrate`` measures the crossover)."""

_CONSTANTS_MAX = 4096  # discrete-action constants kept at most
_constants: dict[tuple[Any, ...], Any] = {}
_warned: set[str] = set()


def _device(x: Any) -> Any:
    if isinstance(x, jax.core.Tracer):
        return None
    devices = x.devices()
    return next(iter(devices)) if len(devices) == 1 else x.sharding


def _stacklevel() -> int:
    """The warnings ``stacklevel`` of the first frame outside anywrap."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("anywrap"):
        frame, level = frame.f_back, level + 1
    return level


def _constant(host: np.ndarray) -> Any:
    """A 0-d integer or bool host value (a discrete action) as a reused JAX array."""
    value = host.item()
    key = (host.dtype, value, jax.config.read("jax_enable_x64"))
    y = _constants.get(key)
    if y is None or y.is_deleted():
        y = jnp.asarray(host)
        if -(1 << 16) <= value < 1 << 16 and len(_constants) < _CONSTANTS_MAX:
            _constants[key] = y
    return y


def _check_fits(host: np.ndarray) -> None:
    """Refuse host 64-bit integers that JAX without x64 would wrap into 32 bits."""
    if host.dtype.kind not in "iu" or host.dtype.itemsize != 8 or not host.size:
        return
    if jax.dtypes.canonicalize_dtype(host.dtype).itemsize == 8:  # x64 is on
        return
    info = np.iinfo(np.int32 if host.dtype.kind == "i" else np.uint32)
    low, high = int(host.min()), int(host.max())
    if low < info.min or high > info.max:
        raise OverflowError(
            f"anywrap: JAX holds {host.dtype} as {info.dtype} here (jax_enable_x64 is off), "
            f"and these values run from {low} to {high}: they would wrap. Turn x64 on with "
            "jax.config.update('jax_enable_x64', True), or convert the values yourself"
        )


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, jax.Array):
        y = host = None
        if isinstance(x, (np.ndarray, np.generic)) or _on_host(x):
            with contextlib.suppress(TypeError, RuntimeError):  # a dtype NumPy lacks (bfloat16)
                host = xp.to_numpy(x)  # a view
        if host is not None:
            _check_fits(host)
            if host.ndim == 0 and host.dtype.kind in "biu":
                y = _constant(host)
            elif host.nbytes <= SMALL_HOST_COPY:
                y = jnp.asarray(host)
        if y is None:
            try:
                y = jax.dlpack.from_dlpack(x)
            except Exception:  # a stride JAX cannot share, or an unshareable source
                y = jnp.asarray(np.ascontiguousarray(xp.to_numpy(x)))
        dtype = getattr(x, "dtype", None)
        wide = getattr(dtype, "itemsize", 0) == 8 and str(dtype).endswith("float64")
        if wide and y.dtype.itemsize < 8 and "float64" not in _warned:
            _warned.add("float64")
            warnings.warn(
                f"JAX holds float64 as {y.dtype} (jax_enable_x64 is off): the conversion "
                "narrowed and copied it. Set jax.config.update('jax_enable_x64', True) to keep it.",
                stacklevel=_stacklevel(),
            )
        x = y
    if isinstance(device, str):  # "cpu", "gpu:1", "cuda:0"
        kind, _, index = device.partition(":")
        kind = {"cuda": "gpu", "rocm": "gpu"}.get(kind, kind)
        try:
            device = jax.devices(kind)[int(index or 0)]
        except (RuntimeError, IndexError, ValueError) as e:
            names = sorted({str(d) for d in jax.devices()})
            raise ValueError(
                f"device {device!r}: JAX has no such device here ({type(e).__name__}); "
                f"it has {names}"
            ) from None
    return x if device is None or _device(x) == device else jax.device_put(x, device)


xp.register_backend(
    TYPES,
    namespace=jnp,
    name="jax",
    device=_device,
    to_numpy=np.asarray,  # a view of a host buffer; a device array is copied
    from_array=_from_array,
    jit=lambda fn, donate=False: jax.jit(fn, donate_argnums=0 if donate else ()),
    aliases=("jnp", "jax.numpy"),
)


xp.cond.register(TYPES, jax.lax.cond)  # only the branch taken runs
xp.stop_gradient.register(TYPES, jax.lax.stop_gradient)


ROW_GROUP_MAX = 32  # rows summed side by side at most (past 32 XLA splits the second sum)
ROW_GROUP_VALUES = 256  # values a group spans at most
ROW_GROUP_MIN_WIDTH = 64  # rows at least this wide are summed as they are


def row_group(n: int, width: int) -> int:
    """How many rows of ``width`` values to sum side by side (XLA's CPU sum over a narrow
    batch is slow): the largest divisor of ``n`` within the limits above leaving 8 groups."""
    if width >= ROW_GROUP_MIN_WIDTH:
        return 1
    for g in range(min(ROW_GROUP_MAX, ROW_GROUP_VALUES // width), 1, -1):
        if n % g == 0 and n // g >= 8:
            return g
    return 1


def _row_sum(x: Any) -> Any:
    # Groups of g rows laid side by side (a free reshape), then the g partial sums.
    n, rest = x.shape[0], x.shape[1:]
    width = math.prod(rest)
    g = row_group(n, width) if rest else 1
    if g == 1:
        return jnp.sum(x, axis=0)
    partial = jnp.sum(jnp.reshape(x, (n // g, g * width)), axis=0)
    return jnp.reshape(jnp.sum(jnp.reshape(partial, (g, width)), axis=0), rest)


@xp.mean_var.register(TYPES)
def _mean_var(x: Any, mask: Any = None) -> tuple[Any, Any]:
    if mask is None:
        rows = x.shape[0]
        mean = _row_sum(x) / rows
        return mean, _row_sum(jnp.square(x - mean)) / rows
    keep = jnp.reshape(mask, (x.shape[0],) + (1,) * (x.ndim - 1))
    n = jnp.maximum(xp.count_true(mask), 1).astype(x.dtype)
    mean = _row_sum(jnp.where(keep, x, 0)) / n
    return mean, _row_sum(jnp.where(keep, jnp.square(x - mean), 0)) / n


@xp.count_true.register(TYPES)
def _count_true(mask: Any) -> Any:
    # XLA's CPU sums floats in one kernel, integers in a chain; float32 is exact below 2^24.
    if mask.size >= 2**24:
        return jnp.sum(mask, dtype=jnp.int32)
    return jnp.sum(mask, dtype=jnp.float32).astype(jnp.int32)


@xp.last_true_indices.register(TYPES)
def _last_true_indices(mask: Any, k: int) -> Any:
    # top_k of the True entries' indices (others score -1): one kernel, not a dozen.
    n = mask.shape[0]
    if n >= 2**24:
        return xp.last_true_indices.dispatch(object)(mask, k)
    _, idx = jax.lax.top_k(jnp.where(mask, jnp.arange(n, dtype=jnp.float32), -1.0), min(k, n))
    if k > n:  # a buffer longer than the batch: pad with a valid index
        idx = jnp.concatenate([idx, jnp.zeros((k - n,), idx.dtype)])
    return idx


@images.resize_images.register(TYPES)
def _resize(batch: Any, size: tuple[int, int], method: str = "area") -> Any:
    if method != "bilinear":  # OpenCV's taps, fused into one loop by jax.jit
        return images.resize_images.dispatch(object)(batch, size, method)
    b, _, _, c = batch.shape
    out = jax.image.resize(batch.astype(jnp.float32), (b, *size, c), "linear", antialias=True)
    return jnp.clip(jnp.round(out), 0, 255).astype(jnp.uint8)


@images.write_rows.register(TYPES)
def _write_rows(buffer: Any, index: Any, rows: Any) -> Any:
    # In place inside a program compiled with donate=True.
    return buffer.at[index].set(
        rows.astype(buffer.dtype), unique_indices=True, indices_are_sorted=True
    )


# A key is raw threefry2x32 key data (two uint32 words): a plain array.
def _on_device_of(words: Any, like: Any) -> Any:
    return words if isinstance(like, jax.core.Tracer) else jax.device_put(words, like.sharding)


@random.new_key.register(TYPES)
def _new_key(like: Any, seed: int) -> Any:
    words = jnp.asarray([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=jnp.uint32)
    return _on_device_of(words, like)


@random.uniform.register(TYPES)
def _uniform(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    key, sub = jax.random.split(jax.random.wrap_key_data(key, impl="threefry2x32"))
    return jax.random.key_data(key), jax.random.uniform(sub, shape, dtype=jnp.float32)


random.key_data.register(TYPES, lambda key: key)


@random.key_from_data.register(TYPES)
def _key_from_data(key: Any, data: Any) -> Any:
    return _on_device_of(jnp.asarray(data, dtype=jnp.uint32), key)
