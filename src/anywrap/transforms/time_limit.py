"""TimeLimit's transform: each episode's clock, truncating at ``elapsed >= max_episode_steps``.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.time_limit import init_clock, time_limit
    >>> clock = init_clock((2,), xp=np)
    >>> no = np.array([False, False])
    >>> for _ in range(3):
    ...     clock, (truncated, over) = time_limit(clock, no, no, max_steps=3)
    >>> clock.elapsed, truncated
    (array([3, 3], dtype=int32), array([ True,  True]))
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.tree import tree_map
from anywrap.xp import Array, namespace

__all__ = [
    "Clock",
    "LimitState",
    "advance_clock",
    "init_clock",
    "init_limit",
    "limit_step",
    "reset_clock",
    "reset_limit",
    "restart_same_step",
    "restart_step",
    "select_rows",
    "time_limit",
    "zero_rows",
]


class Clock(NamedTuple):
    """Steps of each environment's episode (int32), and the last dones."""

    elapsed: Array
    prev_done: Array


def init_clock(batch_shape: tuple[int, ...], *, xp: ModuleType, device: Any = None) -> Clock:
    """Every count at zero, no episode ended."""
    return Clock(*(xp.zeros(batch_shape, dtype=d, device=device) for d in (xp.int32, xp.bool)))


def reset_clock(clock: Clock, mask: Array | None = None) -> Clock:
    """Restart the episodes in ``mask`` (all of them when ``None``)."""
    return Clock(*zero_rows(mask, clock.elapsed, clock.prev_done))


def _count(clock: Clock, autoreset: str) -> Array:
    count = clock.elapsed + 1
    if autoreset == "next_step":  # an env that ended is being reset by this step
        (count,) = zero_rows(clock.prev_done, count)
    return count


def _advanced(count: Array, done: Array, autoreset: str) -> tuple[Clock, Array, Array]:
    if autoreset == "same_step":  # the env restarted at once
        (restarted,) = zero_rows(done, count)
        return Clock(restarted, done), restarted, count
    return Clock(count, done), count, count


def advance_clock(
    clock: Clock,
    terminated: Array | None = None,
    truncated: Array | None = None,
    *,
    autoreset: str = "disabled",
) -> tuple[Clock, Array, Array]:
    """Count one step: ``(clock, elapsed, final_elapsed)`` (the latter: of the final obs)."""
    done = clock.prev_done
    if terminated is not None and truncated is not None:
        done = namespace(done).logical_or(terminated, truncated)
    return _advanced(_count(clock, autoreset), done, autoreset)


def time_limit(
    clock: Clock,
    terminated: Array,
    truncated: Array,
    *,
    max_steps: int,
    autoreset: str = "disabled",
) -> tuple[Clock, tuple[Array, Array]]:
    """Count one step and truncate at ``max_steps``: ``(clock, (truncated, over))``."""
    xp = namespace(clock.elapsed)
    count = _count(clock, autoreset)
    over = count >= max_steps
    truncated = xp.logical_or(truncated, over)
    clock, _, _ = _advanced(count, xp.logical_or(terminated, truncated), autoreset)
    return clock, (truncated, over)


class LimitState(NamedTuple):
    """The vector ``TimeLimit``'s clock, and the episodes it ended that the env must reset."""

    clock: Clock
    pending: Array


def init_limit(batch_shape: tuple[int, ...], *, xp: ModuleType, device: Any = None) -> LimitState:
    """Every count at zero, nothing pending."""
    return LimitState(
        init_clock(batch_shape, xp=xp, device=device),
        xp.zeros(batch_shape, dtype=xp.bool, device=device),
    )


def reset_limit(state: LimitState, mask: Array | None = None) -> LimitState:
    """Restart the episodes in ``mask`` (all when ``None``)."""
    return LimitState(reset_clock(state.clock, mask), *zero_rows(mask, state.pending))


def limit_step(
    state: LimitState, terminated: Array, truncated: Array, *, max_steps: int, autoreset: str
) -> tuple[LimitState, Array]:
    """:func:`time_limit` keeping the episodes only the limit ended as ``pending``."""
    xp = namespace(state.pending)
    clock, (truncated_out, over) = time_limit(
        state.clock, terminated, truncated, max_steps=max_steps, autoreset=autoreset
    )
    ended = xp.logical_or(terminated, truncated)
    return LimitState(clock, xp.logical_and(over, xp.logical_not(ended))), truncated_out


def select_rows(mask: Array, a: Any, b: Any) -> Any:
    """Per environment, the tree ``a`` where ``mask`` and ``b`` elsewhere."""
    xp = namespace(mask)

    def leaf(x: Array, y: Array) -> Array:
        ndim = max(getattr(x, "ndim", 0), getattr(y, "ndim", 0))  # a leaf may be a number
        return xp.where(xp.reshape(mask, (*tuple(mask.shape), *(1,) * (ndim - mask.ndim))), x, y)

    return tree_map(leaf, a, b)


def zero_rows(mask: Array | None, *arrays: Array) -> tuple[Array, ...]:
    """Each of ``arrays`` with zeros (False) in the rows of ``mask`` (every row when ``None``).

    Example:
        >>> import numpy as np
        >>> zero_rows(np.array([True, False]), np.array([3, 4]), np.array([True, True]))
        (array([0, 4]), array([False,  True]))
    """
    xp = namespace(arrays[0])
    if mask is None:
        return tuple(xp.zeros_like(x) for x in arrays)
    return tuple(xp.where(mask, xp.zeros_like(x), x) for x in arrays)


def restart_step(
    state: LimitState,
    fresh: Any,
    obs: Any,
    reward: Array,
    terminated: Array,
    truncated: Array,
    *,
    max_steps: int,
    autoreset: str,
) -> tuple[LimitState, tuple[Any, Array, Array, Array]]:
    """NEXT_STEP: ``pending`` rows become ``fresh``, reward 0, no end; then :func:`limit_step`."""
    xp = namespace(state.pending)
    mask, keep = state.pending, xp.logical_not(state.pending)
    obs = select_rows(mask, fresh, obs)
    reward = xp.where(mask, xp.zeros_like(reward), reward)
    terminated, truncated = xp.logical_and(terminated, keep), xp.logical_and(truncated, keep)
    state, truncated = limit_step(
        state, terminated, truncated, max_steps=max_steps, autoreset=autoreset
    )
    return state, (obs, reward, terminated, truncated)


def restart_same_step(
    state: LimitState, fresh: Any, obs: Any, final_obs: Any, final_mask: Array | None
) -> tuple[LimitState, tuple[Any, Any, Array]]:
    """SAME_STEP: ``pending`` rows of ``obs`` become ``fresh``, their last goes to ``final_obs``."""
    xp = namespace(state.pending)
    forced = state.pending
    mask = forced if final_mask is None else xp.logical_or(final_mask, forced)
    out = (select_rows(forced, fresh, obs), select_rows(forced, obs, final_obs), mask)
    return state._replace(pending=xp.zeros_like(forced)), out
