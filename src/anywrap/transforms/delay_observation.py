"""DelayObservation's transform: each environment sees what it observed ``delay`` steps ago.

Gymnasium's ``DelayObservation`` keeps a queue per environment. Here the
queue is a ring of ``delay`` batches, kept oldest first as a tuple: a step
reads the oldest batch and drops it, and appends the new batch as it came
(``queue[1:] + (obs,)``). No batch is ever copied: the ring only moves
references.

A compiled step (:func:`release`) sees only the oldest batch and returns the
released one; :func:`advance` then turns the ring outside it, so that no
library copies the batches the ring keeps (a jitted function would copy an
array it returns unchanged).

Every environment writes into the same slot each step, so the ring holds
every environment's history in step. Episodes restart per environment: a
count of the observations of the current episode says whether there is one
``delay`` steps back (otherwise the output is the space's zero, as in
Gymnasium). An episode that starts outside a step (a masked ``reset``) has
its first observation kept aside in ``first`` until it is due.

Per observation, with ``c`` the episode's observations before it::

    out = zero          if c < delay
          first         if c == delay and the episode started off the ring
          queue[0]      otherwise

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
    """The ring of past observations and each environment's place in it."""

    count: Array
    """Observations of the current episode so far, saturating at ``delay + 1`` (int32)."""
    queue: tuple[Any, ...]
    """The last ``delay`` observation batches (trees), oldest first."""
    first: Any
    """The first observation of episodes that started off the ring (masked resets)."""
    off_ring: Array
    """Whether the episode's first observation is in ``first`` (bool)."""
    prev_done: Array
    """Whether each environment ended on the previous step (bool)."""
    last: Any
    """The last observations released (what a masked reset shows for the others)."""


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
    """What a step reads of the state, the first arguments of :func:`release` and
    :func:`release_with_final`: its :class:`DelayCounts`, the ring's oldest batch, and
    ``first``."""
    return DelayCounts(state.count, state.off_ring, state.prev_done), state.queue[0], state.first


def advance(state: DelayState, counts: DelayCounts, obs: Any, out: Any) -> DelayState:
    """The ring turns: ``obs`` goes in, the oldest batch drops out; ``counts`` and the
    released ``out`` replace the state's. Only references move (no batch is copied),
    so a shell calls this outside its compiled step."""
    return state._replace(
        count=counts.count,
        off_ring=counts.off_ring,
        prev_done=counts.prev_done,
        # Held as values (docs/guide/gradients.md): a graph kept here would grow each step.
        queue=(*state.queue[1:], tree_map(stop_gradient, obs)),
        last=tree_map(stop_gradient, out),
    )


def _read(count: Array, off_ring: Array, first: Any, oldest: Any, zero: Any, delay: int) -> Any:
    """What an observation arriving now releases, for episodes at ``count``."""
    xp = namespace(count)
    out = select_rows(xp.logical_and(count == delay, off_ring), first, oldest)
    return select_rows(count >= delay, out, _broadcast_zero(zero, out))


def _broadcast_zero(zero: Any, like: Any) -> Any:
    """The space's zero (one observation, in ``like``'s library) shaped like ``like``."""

    def leaf(z: Array, x: Array) -> Array:
        xp = namespace(x)
        if z.dtype != x.dtype:
            z = xp.astype(z, x.dtype)
        return xp.broadcast_to(z, tuple(x.shape))

    return tree_map(leaf, zero, like)


def _pushed(count: Array, delay: int) -> Array:
    return namespace(count).clip(count + 1, max=delay + 1)


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
    """One step's arithmetic: ``(counts, out)``, ``out`` taken from ``oldest`` (the ring's
    oldest batch), ``first`` or the zero (see the module's formula). With ``next_step``
    (NEXT_STEP autoreset), an environment that ended on the previous step returns a
    reset observation now: its episode restarts. The flags of this step (if given)
    are kept for the next."""
    xp = namespace(counts.count)
    count, off_ring = counts.count, counts.off_ring
    if next_step:
        count = xp.where(counts.prev_done, xp.zeros_like(count), count)
        off_ring = xp.logical_and(off_ring, xp.logical_not(counts.prev_done))
    out = _read(count, off_ring, first, oldest, zero, delay)
    prev_done = counts.prev_done
    if terminated is not None and truncated is not None:
        prev_done = xp.logical_or(terminated, truncated)
    return DelayCounts(_pushed(count, delay), off_ring, prev_done), out


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
    return DelayCounts(_pushed(count, delay), off_ring, done), (out, final_out)


def delay_observation(state: DelayState, obs: Any, zero: Any) -> tuple[DelayState, Any]:
    """Push ``obs`` and release the observation of ``delay`` steps ago (the episodes
    restart only in :func:`reset_delay`)."""
    if not state.queue:
        return state, obs
    counts, out = release(*release_inputs(state), zero, delay=len(state.queue))
    return advance(state, counts, obs, out), out


def delay_with_final(
    state: DelayState,
    obs: Any,
    final_obs: Any,
    terminated: Array,
    truncated: Array,
    zero: Any,
) -> tuple[DelayState, Any, Any]:
    """SAME_STEP autoreset: ``(state, out, final_out)``.

    An environment that ended released ``final_out`` from its old episode,
    and ``obs`` (already the new episode's first observation) starts a new
    one: it is pushed on the ring, and its own output is the zero. The others
    push ``obs`` as usual (their ``final_out`` equals ``out``).
    """
    if not state.queue:
        return state, obs, final_obs
    counts, (out, final_out) = release_with_final(
        *release_inputs(state), zero, terminated, truncated, delay=len(state.queue)
    )
    return advance(state, counts, obs, out), out, final_out


def reset_delay(
    state: DelayState, obs: Any, zero: Any, mask: Array | None = None
) -> tuple[DelayState, Any]:
    """Start the episodes in ``mask`` (all when ``None``) with the reset observation ``obs``.

    A full reset pushes ``obs`` on the ring like a step. A masked one leaves
    the ring alone (the other environments observed nothing new): the new
    episodes keep their first observation in ``first`` and show the zero,
    the others show again what they showed last (as a Gymnasium vector env
    does for the sub-envs it does not reset).
    """
    if not state.queue:
        return state, obs
    xp = namespace(state.count)
    no = xp.zeros_like(state.off_ring)
    if mask is None:
        counts = DelayCounts(xp.zeros_like(state.count), no, no)
        counts, out = release(counts, state.queue[0], state.first, zero, delay=len(state.queue))
        return advance(state, counts, obs, out), out
    out = select_rows(mask, _broadcast_zero(zero, state.last), state.last)
    new = state._replace(
        count=xp.where(mask, xp.ones_like(state.count), state.count),
        first=tree_map(stop_gradient, select_rows(mask, obs, state.first)),
        off_ring=xp.logical_or(state.off_ring, mask),
        prev_done=xp.logical_and(state.prev_done, xp.logical_not(mask)),
        last=out,
    )
    return new, out
