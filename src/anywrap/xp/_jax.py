"""JAX backend: registered the first time a JAX array is seen.

JAX arrays already speak the Array API (``jax.numpy``); this module adds what
the standard lacks: compilation with :func:`jax.jit` and the device lookup for
tracers (a traced value has no concrete device).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax

from anywrap import xp as _xp

# Inside jax.jit / vmap / scan the values are tracers, which are not
# subclasses of jax.Array as far as functools.singledispatch can tell: the
# compiled paths only reach these kernels if the tracer type is registered too.
_TYPES = (jax.Array, jax.core.Tracer)


def _register(generic: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for tp in _TYPES:
            generic.register(tp)(fn)
        return fn

    return deco


@_xp.jit.register(jax.Array)
def _jit_jax(like: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    return jax.jit(fn)


@_register(_xp._device)
def _device_jax(x: Any) -> Any:
    if isinstance(x, jax.core.Tracer):
        return None
    devices = x.devices()
    return next(iter(devices)) if len(devices) == 1 else x.sharding


@_register(_xp._sum_along)
def _sum_along_jax(x: Any, axis: int | None) -> Any:
    jnp = jax.numpy
    if axis != 0 or x.ndim < 2:
        return jnp.sum(x, axis=axis)
    # XLA's CPU kernel for a sum over the rows of a narrow batch (4096 x 3
    # observations) is 7x slower than for a wide one: sum groups of g rows
    # laid side by side (a free reshape), then the g partial sums.
    n, rest = x.shape[0], x.shape[1:]
    width = math.prod(rest)
    g = _row_group(n, width)
    if g == 1:
        return jnp.sum(x, axis=0)
    partial = jnp.sum(jnp.reshape(x, (n // g, g * width)), axis=0)
    return jnp.reshape(jnp.sum(jnp.reshape(partial, (g, width)), axis=0), rest)


def _row_group(n: int, width: int) -> int:
    """How many rows of ``width`` values to sum side by side: the largest
    divisor of ``n`` up to ``min(32, 256 // width)``, and 1 where grouping is
    no help. (Past 32 groups XLA splits the second sum into two kernels.)"""
    if width >= 64:
        return 1
    for g in range(min(32, 256 // width), 1, -1):
        if n % g == 0 and n // g >= 8:
            return g
    return 1


@_register(_xp._count_true)
def _count_true_jax(mask: Any) -> Any:
    # XLA on the CPU sums integers through a chain of reduce-windows (three
    # kernels) and floats in one; float32 counts are exact below 2^24.
    jnp = jax.numpy
    if mask.size >= 2**24:
        return jnp.sum(mask, dtype=jnp.int32)
    return jnp.sum(mask, dtype=jnp.float32).astype(jnp.int32)


@_register(_xp.cumulative_sum)
def _cumulative_sum_jax(x: Any) -> Any:
    # XLA lowers cumsum to a reduce-window, slow on the CPU; the scan is not.
    return jax.lax.associative_scan(jax.numpy.add, x)


@_register(_xp.last_true_indices)
def _last_true_indices_jax(mask: Any, k: int) -> Any:
    # top_k of the indices of the True entries (others score -1): one XLA
    # kernel, where the cumulative sum and binary search take a dozen. Scores
    # are float32 (XLA's fast top-k), exact for indices below 2^24.
    n = mask.shape[0]
    if n >= 2**24:
        return _xp.last_true_indices.dispatch(object)(mask, k)
    jnp = jax.numpy
    score = jnp.where(mask, jnp.arange(n, dtype=jnp.float32), -1.0)
    _, idx = jax.lax.top_k(score, min(k, n))
    if k > n:  # a buffer longer than the batch: pad with a valid index
        idx = jnp.concatenate([idx, jnp.zeros((k - n,), idx.dtype)])
    return idx


from anywrap.xp import _jax_random  # noqa: E402, F401  (random ops: xp/random.py)
