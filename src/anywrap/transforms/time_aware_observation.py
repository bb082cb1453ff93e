"""TimeAwareObservation's transform: each observation with its episode's time added.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.time_aware_observation import TimeFeature, time_aware
    >>> from anywrap.transforms.time_limit import init_clock
    >>> feature = TimeFeature(max_steps=4, normalize=True, layout="wrap")
    >>> clock, (obs, _) = time_aware(init_clock((), xp=np), np.zeros(2), feature=feature)
    >>> obs["time"]
    array([0.25], dtype=float32)
"""

from __future__ import annotations

from typing import Any, NamedTuple

from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation
from anywrap.transforms.time_limit import Clock, advance_clock, reset_clock
from anywrap.xp import Array, device, namespace, resolve_dtype, wide_float

__all__ = ["TimeFeature", "add_time", "show_time", "time_aware", "time_aware_reset", "time_feature"]


class TimeFeature(NamedTuple):
    """How the time joins: ``layout`` ``"dict"`` (under ``key``), ``"tuple"`` or ``"wrap"``
    (``{"obs", "time"}``), flattened by ``plan`` if given; ``normalize``: a fraction."""

    max_steps: int
    normalize: bool
    layout: str
    key: str = "time"
    plan: FlatPlan | None = None
    batch_ndim: int = 0


def time_feature(elapsed: Array, *, max_steps: int, normalize: bool) -> Array:
    """``elapsed`` ``(..., 1)`` as int32 counts, or ``float32(elapsed / max_steps)``."""
    xp, dev = namespace(elapsed), device(elapsed)
    if normalize:
        wide = xp.astype(elapsed, wide_float(xp, dev), copy=False)
        value = xp.astype(wide / max_steps, resolve_dtype(xp, "float32", dev), copy=False)
    else:
        value = xp.astype(elapsed, xp.int32, copy=False)
    return xp.reshape(value, (*tuple(elapsed.shape), 1))


def add_time(obs: Any, elapsed: Array, feature: TimeFeature) -> Any:
    """``obs`` with the time of the counts ``elapsed`` added as ``feature`` says."""
    time = time_feature(elapsed, max_steps=feature.max_steps, normalize=feature.normalize)
    if feature.layout == "dict":
        combined: Any = {feature.key: time, **obs}
    elif feature.layout == "tuple":
        combined = (*obs, time)
    else:
        combined = {"obs": obs, "time": time}
    if feature.plan is None:
        return combined
    return flatten_observation(combined, feature.plan, feature.batch_ndim)


def time_aware(
    clock: Clock,
    obs: Any,
    terminated: Array | None = None,
    truncated: Array | None = None,
    final_obs: Any = None,
    *,
    feature: TimeFeature,
    autoreset: str = "disabled",
) -> tuple[Clock, tuple[Any, Any]]:
    """Count one step and add the time: ``(clock, (obs, final_obs))``."""
    clock, elapsed, final_elapsed = advance_clock(clock, terminated, truncated, autoreset=autoreset)
    final = None if final_obs is None else add_time(final_obs, final_elapsed, feature)
    return clock, (add_time(obs, elapsed, feature), final)


def time_aware_reset(
    clock: Clock, obs: Any, mask: Array | None = None, *, feature: TimeFeature
) -> tuple[Clock, Any]:
    """Restart the clocks in ``mask`` (all when ``None``); ``(clock, obs with time)``."""
    return show_time(reset_clock(clock, mask), obs, feature=feature)


def show_time(clock: Clock, obs: Any, *, feature: TimeFeature) -> tuple[Clock, Any]:
    """``obs`` with the current time added; nothing counted (Gymnasium's ``observation``)."""
    return clock, add_time(obs, clock.elapsed, feature)
