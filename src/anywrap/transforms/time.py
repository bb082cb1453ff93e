"""Episode clocks: each environment's step count, for time limits and time features.

:class:`Clock` counts the steps of each environment's current episode. How
an episode restarts depends on who resets the environment
(``autoreset``, one of :data:`AUTORESET`):

* ``"next_step"``: an environment that ended on the previous step is reset
  on this one, without stepping; its count is 0 after it.
* ``"same_step"``: an environment that ends is reset at once; the
  observation it returns already belongs to the new episode (count 0), and
  the final observation keeps the old count.
* ``"disabled"`` (and a single env): only :func:`reset_clock` restarts a count.

:func:`time_limit` truncates an episode once its count reaches the limit, as
Gymnasium's ``TimeLimit`` does (``elapsed >= max_episode_steps``), and says
which environments it ended that the environment itself did not (those must
be reset by the caller). :func:`time_feature` is ``TimeAwareObservation``'s
time entry: the count as ``int32``, or ``count / max_steps`` as ``float32``
(divided in float64 where the library has it, as Gymnasium's Python division
does, then rounded); :class:`TimeFeature` says how it joins the observation.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.time import init_clock, time_limit
    >>> clock = init_clock((2,), xp=np)
    >>> no = np.array([False, False])
    >>> for _ in range(3):
    ...     clock, truncated, forced = time_limit(clock, no, no, max_steps=3)
    >>> clock.elapsed, truncated, forced
    (array([3, 3], dtype=int32), array([ True,  True]), array([ True,  True]))
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.arrays import FlatPlan, flatten_observation
from anywrap.tree import tree_map
from anywrap.xp import Array, device, namespace, resolve_dtype, wide_float

__all__ = [
    "AUTORESET",
    "Clock",
    "TimeFeature",
    "add_time",
    "advance_clock",
    "init_clock",
    "reset_clock",
    "restart_now",
    "restart_rows",
    "select_rows",
    "time_aware",
    "time_aware_reset",
    "time_feature",
    "time_limit",
]

AUTORESET = ("next_step", "same_step", "disabled")


class Clock(NamedTuple):
    """Per-environment step counts of the current episodes."""

    elapsed: Array
    """Steps taken in the current episode (int32)."""
    prev_done: Array
    """Whether each environment ended on the previous step (bool)."""


def init_clock(batch_shape: tuple[int, ...], *, xp: ModuleType, device: Any = None) -> Clock:
    """Every count at zero, no episode ended."""
    return Clock(
        elapsed=xp.zeros(batch_shape, dtype=xp.int32, device=device),
        prev_done=xp.zeros(batch_shape, dtype=xp.bool, device=device),
    )


def reset_clock(clock: Clock, mask: Array | None = None) -> Clock:
    """Restart the episodes in ``mask`` (all of them when ``None``)."""
    xp = namespace(clock.elapsed)
    if mask is None:
        return Clock(xp.zeros_like(clock.elapsed), xp.zeros_like(clock.prev_done))
    return Clock(
        xp.where(mask, xp.zeros_like(clock.elapsed), clock.elapsed),
        xp.logical_and(clock.prev_done, xp.logical_not(mask)),
    )


def advance_clock(
    clock: Clock, terminated: Array, truncated: Array, *, autoreset: str = "disabled"
) -> tuple[Clock, Array, Array]:
    """Count one step; ``(clock, elapsed, final_elapsed)``.

    ``elapsed`` belongs to the observation returned by this step, and
    ``final_elapsed`` to the final observation of an episode that ended
    (they differ only in ``"same_step"`` mode). The returned clock has
    ``prev_done = terminated | truncated``; a caller that ends more episodes
    (a time limit) replaces it.
    """
    xp = namespace(clock.elapsed)
    zeros = xp.zeros_like(clock.elapsed)
    done = xp.logical_or(terminated, truncated)
    if autoreset == "next_step":
        elapsed = xp.where(clock.prev_done, zeros, clock.elapsed + xp.ones_like(zeros))
        return Clock(elapsed, done), elapsed, elapsed
    final = clock.elapsed + xp.ones_like(zeros)
    if autoreset == "same_step":
        restarted = xp.where(done, zeros, final)
        return Clock(restarted, done), restarted, final
    return Clock(final, done), final, final


def time_limit(
    clock: Clock,
    terminated: Array,
    truncated: Array,
    *,
    max_steps: int,
    autoreset: str = "disabled",
) -> tuple[Clock, Array, Array]:
    """Count one step and truncate episodes that reach ``max_steps``.

    Returns ``(clock, truncated, forced)``: ``truncated`` is the env's flag
    or'ed with the limit; ``forced`` marks the episodes the limit ended that
    the env did not (``terminated | truncated`` was False), which the env will
    not reset by itself. (In ``"next_step"`` mode a reset step counts 0, so it
    is never truncated.)
    """
    xp = namespace(clock.elapsed)
    zeros = xp.zeros_like(clock.elapsed)
    if autoreset == "next_step":
        count = xp.where(clock.prev_done, zeros, clock.elapsed + xp.ones_like(zeros))
    else:
        count = clock.elapsed + xp.ones_like(zeros)
    over = count >= max_steps
    forced = xp.logical_and(over, xp.logical_not(xp.logical_or(terminated, truncated)))
    truncated = xp.logical_or(truncated, over)
    done = xp.logical_or(terminated, truncated)
    if autoreset == "same_step":
        count = xp.where(done, zeros, count)
    return Clock(count, done), truncated, forced


class TimeFeature(NamedTuple):
    """How ``TimeAwareObservation`` adds the time to an observation."""

    max_steps: int
    normalize: bool
    """The time as ``float32(elapsed / max_steps)`` instead of the ``int32`` count."""
    layout: str
    """``"dict"``: under ``key`` in a Dict observation; ``"tuple"``: appended to a
    Tuple one; ``"wrap"``: ``{"obs": obs, "time": time}``."""
    key: str = "time"
    plan: FlatPlan | None = None
    """Flatten the result with this plan (see
    :func:`~anywrap.transforms.arrays.flatten_observation`)."""
    batch_ndim: int = 0


def time_feature(elapsed: Array, *, max_steps: int, normalize: bool) -> Array:
    """``TimeAwareObservation``'s time entry, shape ``elapsed.shape + (1,)``.

    ``int32`` counts, or with ``normalize`` ``float32(elapsed / max_steps)``.
    """
    xp = namespace(elapsed)
    dev = device(elapsed)
    if normalize:
        wide = xp.astype(elapsed, wide_float(xp, dev), copy=False)
        value = xp.astype(wide / max_steps, resolve_dtype(xp, "float32", dev), copy=False)
    else:
        value = xp.astype(elapsed, xp.int32, copy=False)
    return xp.reshape(value, (*tuple(elapsed.shape), 1))


def add_time(obs: Any, elapsed: Array, feature: TimeFeature) -> Any:
    """``TimeAwareObservation``'s observation: ``obs`` with the time of the counts
    ``elapsed`` added as ``feature`` says."""
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
    terminated: Array,
    truncated: Array,
    final_obs: Any = None,
    *,
    feature: TimeFeature,
    autoreset: str = "disabled",
) -> tuple[Clock, Any, Any]:
    """Count one step and add the time to ``obs`` (and to ``final_obs``, if given).

    Returns ``(clock, obs, final_obs)``.
    """
    clock, elapsed, final_elapsed = advance_clock(clock, terminated, truncated, autoreset=autoreset)
    final = None if final_obs is None else add_time(final_obs, final_elapsed, feature)
    return clock, add_time(obs, elapsed, feature), final


def time_aware_reset(
    clock: Clock, obs: Any, mask: Array | None = None, *, feature: TimeFeature
) -> tuple[Clock, Any]:
    """Restart the clocks in ``mask`` (all when ``None``); ``(clock, obs with time)``."""
    clock = reset_clock(clock, mask)
    return clock, add_time(obs, clock.elapsed, feature)


def restart_rows(
    mask: Array, reset_obs: Any, obs: Any, reward: Array, terminated: Array, truncated: Array
) -> tuple[Any, Array, Array, Array]:
    """A NEXT_STEP reset step for the environments in ``mask``: their rows become
    the reset observation, reward 0 and no end (what an env that resets itself returns)."""
    xp = namespace(mask)

    def rows(m: Array, x: Array) -> Array:
        return xp.reshape(m, (*tuple(m.shape), *(1,) * (x.ndim - m.ndim)))

    obs = tree_map(lambda r, o: xp.where(rows(mask, o), r, o), reset_obs, obs)
    reward = xp.where(mask, xp.zeros_like(reward), reward)
    keep = xp.logical_not(mask)
    return obs, reward, xp.logical_and(terminated, keep), xp.logical_and(truncated, keep)


def select_rows(mask: Array, a: Any, b: Any) -> Any:
    """Per environment, the tree ``a`` where ``mask`` and ``b`` elsewhere."""
    xp = namespace(mask)

    def leaf(x: Array, y: Array) -> Array:
        return xp.where(xp.reshape(mask, (*tuple(mask.shape), *(1,) * (y.ndim - mask.ndim))), x, y)

    return tree_map(leaf, a, b)


def restart_now(
    forced: Array, fresh: Any, obs: Any, final_obs: Any, final_mask: Array | None
) -> tuple[Any, Any, Array]:
    """A SAME_STEP restart of the environments in ``forced``: ``(obs, final_obs, mask)``,
    their rows of ``obs`` becoming the reset observation ``fresh`` and their last
    observation going to ``final_obs`` (whose mask ``final_mask`` grows by them)."""
    xp = namespace(forced)
    mask = forced if final_mask is None else xp.logical_or(final_mask, forced)
    return select_rows(forced, fresh, obs), select_rows(forced, obs, final_obs), mask
