"""The JAX backend, registered the first time a JAX array (or the name "jax") is met.

JAX arrays speak the Array API (``jax.numpy``). This module adds what the
standard lacks: compilation with :func:`jax.jit`, the device of a tracer (a
traced value has none), DLPack imports tuned for the host, and routes to
XLA-friendly kernels. Every route is registered for ``jax.Array`` and for
``jax.core.Tracer``: inside ``jax.jit`` / ``vmap`` / ``scan`` the values are
tracers, which ``jax.Array`` does not cover.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from anywrap.xp import ops
from anywrap.xp.registry import (
    Backend,
    backend_of,
    exportable,
    is_on_host,
    register_backend,
    to_numpy,
)

SMALL_HOST_COPY = 64 * 1024
"""Host arrays up to this many bytes are copied into JAX rather than shared.

``jax.dlpack.from_dlpack`` has a fixed cost that exceeds a copy of a small
buffer. ``python -m anywrap.bench.calibrate`` measures both on the machine at
hand and prints the crossover; on the development machine (2 shared x86-64
cores, JAX 0.10.2) it lay between 64 KiB and 1 MiB over several runs, so
64 KiB errs on the side of sharing.
"""

_CONSTANTS_MAX = 4096
"""At most this many discrete-action constants are kept. Not a machine figure: a
bound on memory (a few hundred KB) for programs whose actions take many values."""
_CONSTANT_RANGE = 1 << 16
"""Only values in ``[-65536, 65536)`` are kept: discrete action spaces, not ids."""
_constants: dict[tuple[Any, ...], Any] = {}
_warned_narrowing: set[str] = set()


def _device(x: Any) -> Any:
    if isinstance(x, jax.core.Tracer):
        return None
    devices = x.devices()
    return next(iter(devices)) if len(devices) == 1 else x.sharding


def _jax_device(device: Any) -> Any:
    """A ``jax.Device`` from a device or a name such as ``"cpu"``, ``"gpu:1"``, ``"cuda:0"``."""
    if not isinstance(device, str):
        return device
    kind, _, index = device.partition(":")
    kind = {"cuda": "gpu", "rocm": "gpu"}.get(kind, kind)
    return jax.devices(kind)[int(index or 0)]


def _check_device(device: Any) -> None:
    if isinstance(device, str):
        try:
            _jax_device(device)
        except (RuntimeError, IndexError, ValueError) as e:
            names = sorted({str(d) for d in jax.devices()})
            raise ValueError(
                f"device {device!r}: JAX has no such device here ({type(e).__name__}); "
                f"it has {names}"
            ) from None


def _to_device(x: Any, device: Any) -> Any:
    dev = _jax_device(device)
    if _device(x) == dev:
        return x
    return jax.device_put(x, dev)


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside anywrap (for warnings)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("anywrap"):
        frame, level = frame.f_back, level + 1
    return level


def _constant(host: np.ndarray) -> Any:
    """A 0-d integer or bool host value (a discrete action) as a reused JAX array.

    Each conversion would cost a JAX dispatch; the immutable result is kept per
    (dtype, value) instead. One that a jitted step donated (deleted) is made anew.
    """
    value = host.item()
    key = (host.dtype, value, jax.config.read("jax_enable_x64"))
    y = _constants.get(key)
    if y is None or y.is_deleted():
        y = jnp.asarray(host)
        if -_CONSTANT_RANGE <= value < _CONSTANT_RANGE and len(_constants) < _CONSTANTS_MAX:
            _constants[key] = y
    return y


def _is_float64(dtype: Any) -> bool:
    """Whether ``dtype`` (of any library) is float64: its name, read only for an
    8-byte type (a NumPy dtype's name costs about a microsecond)."""
    return getattr(dtype, "itemsize", 0) == 8 and str(dtype).rpartition(".")[2] == "float64"


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, jax.Array):
        y = None
        if is_on_host(x):
            try:
                host = to_numpy(x)  # a view
            except (TypeError, RuntimeError):  # a dtype NumPy lacks (bfloat16, ...)
                host = None
            if host is not None and host.ndim == 0 and host.dtype.kind in "biu":
                y = _constant(host)
            elif host is not None and host.nbytes <= SMALL_HOST_COPY:
                y = jnp.asarray(host)
        if y is None:
            try:
                y = jax.dlpack.from_dlpack(exportable(x))
            except Exception:  # a stride JAX cannot share, or an unshareable source
                y = jnp.asarray(np.ascontiguousarray(to_numpy(x)))
        # Narrowed integers (actions, counts) are harmless; narrowed floats lose precision.
        if (
            not _warned_narrowing
            and y.dtype.kind == "f"
            and y.dtype.itemsize < 8
            and _is_float64(getattr(x, "dtype", None))
        ):
            _warned_narrowing.add("float64")
            warnings.warn(
                f"JAX holds float64 as {y.dtype} (jax_enable_x64 is off): the conversion "
                "narrowed and copied it. Set jax.config.update('jax_enable_x64', True) to keep it.",
                stacklevel=_caller_stacklevel(),
            )
        x = y
    return x if device is None else _to_device(x, device)


def _jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    return jax.jit(fn)


JAX: Backend = register_backend(
    Backend(
        "jax",
        (jax.Array, jax.core.Tracer),
        namespace=lambda x: jnp,
        device=_device,
        to_numpy=np.asarray,  # a view of a host buffer; a device array is copied
        from_array=_from_array,
        to_device=_to_device,
        jit=_jit,
        jit_donating=lambda fn: jax.jit(fn, donate_argnums=0),
        has_float64=lambda dev: bool(jax.config.read("jax_enable_x64")),  # switchable: no cache
        check_device=_check_device,
        aliases=("jnp", "jax.numpy", "jaxlib"),
    )
)
assert backend_of(jnp.zeros(())) is JAX


# --------------------------------------------------------------------- routes
@JAX.route(ops.sum_along)
def _sum_along_jax(x: Any, axis: int | None = None) -> Any:
    if axis != 0 or x.ndim < 2:
        return jnp.sum(x, axis=axis)
    # XLA's CPU kernel for a sum over the rows of a narrow batch (4096 x 3
    # observations) is several times slower than for a wide one: sum groups
    # of g rows laid side by side (a free reshape), then the g partial sums.
    n, rest = x.shape[0], x.shape[1:]
    width = math.prod(rest)
    g = row_group(n, width)
    if g == 1:
        return jnp.sum(x, axis=0)
    partial = jnp.sum(jnp.reshape(x, (n // g, g * width)), axis=0)
    return jnp.reshape(jnp.sum(jnp.reshape(partial, (g, width)), axis=0), rest)


ROW_GROUP_MAX = 32
"""At most this many rows are summed side by side (past 32 XLA splits the second sum)."""
ROW_GROUP_VALUES = 256
"""A group spans at most this many values (``g * width``)."""
ROW_GROUP_MIN_WIDTH = 64
"""Rows at least this wide are summed as they are."""


def row_group(n: int, width: int) -> int:
    """How many rows of ``width`` values to sum side by side: the largest divisor
    of ``n`` up to ``min(ROW_GROUP_MAX, ROW_GROUP_VALUES // width)`` that leaves
    at least 8 groups, and 1 where grouping is no help.

    The three constants were chosen from ``python -m anywrap.bench.calibrate``,
    which times the grouped and the plain row sums on the machine at hand for
    the batch shapes of benchmarks B3, B4 and B8.
    """
    if width >= ROW_GROUP_MIN_WIDTH:
        return 1
    for g in range(min(ROW_GROUP_MAX, ROW_GROUP_VALUES // width), 1, -1):
        if n % g == 0 and n // g >= 8:
            return g
    return 1


@JAX.route(ops.count_true)
def _count_true_jax(mask: Any) -> Any:
    # XLA on the CPU sums integers through a chain of reduce-windows and floats
    # in one kernel; float32 counts are exact below 2^24.
    if mask.size >= 2**24:
        return jnp.sum(mask, dtype=jnp.int32)
    return jnp.sum(mask, dtype=jnp.float32).astype(jnp.int32)


@JAX.route(ops.cumulative_sum)
def _cumulative_sum_jax(x: Any) -> Any:
    # XLA lowers cumsum to a reduce-window, slow on the CPU; the scan is not.
    return jax.lax.associative_scan(jnp.add, x)


@JAX.route(ops.fast_path)
def _fast_path_jax(pred: Any, fast: Any, safe: Callable[..., Any], *operands: Any) -> Any:
    # Only the branch taken runs: the safe formula's extra passes cost nothing
    # while the fast one holds.
    return jax.lax.cond(pred, lambda f, *o: f, lambda f, *o: safe(*o), fast, *operands)


@JAX.route(ops.last_true_indices)
def _last_true_indices_jax(mask: Any, k: int) -> Any:
    # top_k of the indices of the True entries (others score -1): one XLA
    # kernel, where the cumulative sum and binary search take a dozen. Scores
    # are float32 (XLA's fast top-k), exact for indices below 2^24.
    n = mask.shape[0]
    if n >= 2**24:
        return ops.last_true_indices.default(mask, k)
    score = jnp.where(mask, jnp.arange(n, dtype=jnp.float32), -1.0)
    _, idx = jax.lax.top_k(score, min(k, n))
    if k > n:  # a buffer longer than the batch: pad with a valid index
        idx = jnp.concatenate([idx, jnp.zeros((k - n,), idx.dtype)])
    return idx


from anywrap.xp import _jax_images as _jax_images  # noqa: E402  (image ops)
from anywrap.xp import _jax_random  # noqa: E402, F401  (random ops: xp/random.py)
