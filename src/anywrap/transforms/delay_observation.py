"""DelayObservation's transform: each environment sees what it observed ``delay`` steps ago.

Until ``delay`` observations of the episode came, the output is the zero (as in Gymnasium).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.delay_observation import delay_observation, init_delay
    >>> zero = np.zeros(2)
    >>> s = init_delay(zero, delay=2, batch_shape=(2,), xp=np)
    >>> outs = []
    >>> for t in range(1, 5):
    ...     s, out = delay_observation(s, np.full((2, 2), float(t)), zero)
    ...     outs.append(float(out[0, 0]))
    >>> outs
    [0.0, 0.0, 1.0, 2.0]
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.time_limit import select_rows
from anywrap.tree import tree_map
from anywrap.xp import Array, namespace, stop_gradient

__all__ = [
    "DelayCounts",
    "DelayState",
    "advance",
    "delay_observation",
    "delay_with_final",
    "init_delay",
    "release",
    "release_inputs",
    "release_with_final",
    "reset_delay",
]


class DelayState(NamedTuple):
    """The last ``delay`` batches, oldest first; per env the episode's ``count``, its
    ``first`` observation (if ``off_ring``: a masked reset), the last dones and output."""

    count: Array
    queue: tuple[Any, ...]
    first: Any
    off_ring: Array
    prev_done: Array
    last: Any


def init_delay(
    zero: Any, *, delay: int, batch_shape: tuple[int, ...], xp: ModuleType, device: Any = None
) -> DelayState:
    """An empty ring for observations shaped like ``zero`` (one observation, a tree)."""

    def batch(z: Array) -> Array:
        z = xp.asarray(z, device=device)
        return xp.asarray(xp.broadcast_to(z, (*batch_shape, *tuple(z.shape))), copy=True)

    return DelayState(
        count=xp.zeros(batch_shape, dtype=xp.int32, device=device),
        queue=tuple(tree_map(batch, zero) for _ in range(delay)),
        first=tree_map(batch, zero),
        off_ring=xp.zeros(batch_shape, dtype=xp.bool, device=device),
        prev_done=xp.zeros(batch_shape, dtype=xp.bool, device=device),
        last=tree_map(batch, zero),
    )


class DelayCounts(NamedTuple):
    """The per-environment part of :class:`DelayState` that a step computes."""

    count: Array
    off_ring: Array
    prev_done: Array


def release_inputs(state: DelayState) -> tuple[DelayCounts, Any, Any]:
    """The first arguments of :func:`release`: the counts, the oldest batch, ``first``."""
    return DelayCounts(state.count, state.off_ring, state.prev_done), state.queue[0], state.first


def advance(state: DelayState, counts: DelayCounts, obs: Any, out: Any) -> DelayState:
    """Turn the ring: ``obs`` in, the oldest out; ``counts`` and ``out`` kept."""
    return state._replace(
        **counts._asdict(),
        queue=(*state.queue[1:], tree_map(stop_gradient, obs)),
        last=tree_map(stop_gradient, out),
    )


def _read(count: Array, off_ring: Array, first: Any, oldest: Any, zero: Any, delay: int) -> Any:
    out = select_rows(namespace(count).logical_and(count == delay, off_ring), first, oldest)
    return select_rows(count >= delay, out, _broadcast_zero(zero, out))


def _broadcast_zero(zero: Any, like: Any) -> Any:
    def leaf(z: Array, x: Array) -> Array:
        xp = namespace(x)
        return xp.broadcast_to(z if z.dtype == x.dtype else xp.astype(z, x.dtype), tuple(x.shape))

    return tree_map(leaf, zero, like)


def release(
    counts: DelayCounts,
    oldest: Any,
    first: Any,
    zero: Any,
    terminated: Array | None = None,
    truncated: Array | None = None,
    *,
    delay: int,
    next_step: bool = False,
) -> tuple[DelayCounts, Any]:
    """One step's arithmetic: ``(counts, out)``; ``next_step``: the last step's dones restart."""
    xp = namespace(counts.count)
    count, off_ring = counts.count, counts.off_ring
    if next_step:
        count = xp.where(counts.prev_done, xp.zeros_like(count), count)
        off_ring = xp.logical_and(off_ring, xp.logical_not(counts.prev_done))
    out = _read(count, off_ring, first, oldest, zero, delay)
    prev_done = counts.prev_done
    if terminated is not None and truncated is not None:
        prev_done = xp.logical_or(terminated, truncated)
    return DelayCounts(xp.clip(count + 1, max=delay + 1), off_ring, prev_done), out


def release_with_final(
    counts: DelayCounts,
    oldest: Any,
    first: Any,
    zero: Any,
    terminated: Array,
    truncated: Array,
    *,
    delay: int,
) -> tuple[DelayCounts, tuple[Any, Any]]:
    """SAME_STEP's arithmetic: ``(counts, (out, final_out))``. See :func:`delay_with_final`."""
    xp = namespace(counts.count)
    done = xp.logical_or(terminated, truncated)
    final_out = _read(counts.count, counts.off_ring, first, oldest, zero, delay)
    count = xp.where(done, xp.zeros_like(counts.count), counts.count)
    off_ring = xp.logical_and(counts.off_ring, xp.logical_not(done))
    out = select_rows(done, _broadcast_zero(zero, final_out), final_out)
    return DelayCounts(xp.clip(count + 1, max=delay + 1), off_ring, done), (out, final_out)


def delay_observation(state: DelayState, obs: Any, zero: Any) -> tuple[DelayState, Any]:
    """Push ``obs`` and release the observation of ``delay`` steps ago."""
    if not state.queue:
        return state, obs
    counts, out = release(*release_inputs(state), zero, delay=len(state.queue))
    return advance(state, counts, obs, out), out


def delay_with_final(
    state: DelayState, obs: Any, final_obs: Any, terminated: Array, truncated: Array, zero: Any
) -> tuple[DelayState, Any, Any]:
    """SAME_STEP: ``(state, out, final_out)``; an env that ended shows the zero."""
    if not state.queue:
        return state, obs, final_obs
    counts, (out, final_out) = release_with_final(
        *release_inputs(state), zero, terminated, truncated, delay=len(state.queue)
    )
    return advance(state, counts, obs, out), out, final_out


def reset_delay(
    state: DelayState, obs: Any, zero: Any, mask: Array | None = None
) -> tuple[DelayState, Any]:
    """Start the episodes in ``mask`` (all when ``None``) with ``obs``."""
    if not state.queue:
        return state, obs
    xp = namespace(state.count)
    if mask is None:  # a step from empty counts
        no = xp.zeros_like(state.off_ring)
        fresh = state._replace(count=xp.zeros_like(state.count), off_ring=no, prev_done=no)
        return delay_observation(fresh, obs, zero)
    out = select_rows(mask, _broadcast_zero(zero, state.last), state.last)
    new = state._replace(
        count=xp.where(mask, xp.ones_like(state.count), state.count),
        first=tree_map(stop_gradient, select_rows(mask, obs, state.first)),
        off_ring=xp.logical_or(state.off_ring, mask),
        prev_done=xp.logical_and(state.prev_done, xp.logical_not(mask)),
        last=out,
    )
    return new, out
