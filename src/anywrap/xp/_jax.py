"""JAX backend: registered the first time a JAX array is seen.

JAX arrays already speak the Array API (``jax.numpy``); this module adds what
the standard lacks: compilation with :func:`jax.jit` and the device lookup for
tracers (a traced value has no concrete device).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from anywrap import xp as _xp


@_xp.jit.register(jax.Array)
def _jit_jax(like: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
    return jax.jit(fn)


@_xp._device.register(jax.Array)
def _device_jax(x: Any) -> Any:
    if isinstance(x, jax.core.Tracer):
        return None
    devices = x.devices()
    return next(iter(devices)) if len(devices) == 1 else x.sharding


@_xp.cumulative_sum.register(jax.Array)
def _cumulative_sum_jax(x: Any) -> Any:
    # XLA lowers cumsum to a reduce-window, slow on the CPU; the scan is not.
    return jax.lax.associative_scan(jax.numpy.add, x)
