"""MaxAndSkipObservation's transform: the maximum of the last two of ``skip`` frames.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import max_and_skip_observation as T
    >>> s = T.init_max_frames((), (3,), xp=np, dtype=np.uint8)
    >>> s, (pooled, reward) = T.max_of_two(s, np.array([1, 5, 2]), np.array([4, 0, 2]), (1.0, 0.5))
    >>> pooled, reward
    (array([4, 5, 2], dtype=uint8), 1.5)
    >>> s, (pooled, reward) = T.max_of_two(s, None, np.array([0, 0, 9]))  # a step not reached
    >>> pooled, reward  # the buffer's older frame stays, as in Gymnasium
    (array([1, 5, 9], dtype=uint8), None)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.time_limit import select_rows, zero_rows
from anywrap.xp import Array, namespace, stop_gradient

__all__ = [
    "MaxFrames",
    "SkipOutput",
    "init_max_frames",
    "max_and_skip",
    "max_of_two",
    "reset_max_frames",
]


class MaxFrames(NamedTuple):
    """The last two frames ``(2, *batch, *frame)``; per env the reward owed to the next call."""

    frames: Array
    pending: Array


class SkipOutput(NamedTuple):
    """One vector max-and-skip call's results (``final_obs`` in SAME_STEP mode only)."""

    obs: Array
    reward: Array
    terminated: Array
    truncated: Array
    final_obs: Array | None


def init_max_frames(
    batch: tuple[int, ...],
    frame_shape: tuple[int, ...],
    *,
    xp: ModuleType,
    dtype: Any,
    device: Any = None,
) -> MaxFrames:
    """Zero frames (as Gymnasium starts) and no pending reward."""
    return MaxFrames(
        frames=xp.zeros((2, *batch, *frame_shape), dtype=dtype, device=device),
        pending=xp.zeros(batch, dtype=xp.float64, device=device),
    )


def reset_max_frames(state: MaxFrames, mask: Array | None = None) -> MaxFrames:
    """Drop the pending reward of the rows reset (the frames stay, as in Gymnasium)."""
    (pending,) = zero_rows(mask, state.pending)
    return state._replace(pending=pending)


def max_of_two(
    state: MaxFrames, last_but_one: Array | None, last: Array | None, rewards: tuple[Any, ...] = ()
) -> tuple[MaxFrames, tuple[Array, Any]]:
    """One env's call (``None``: a frame not reached): ``(state, (maximum, sum of rewards))``."""
    xp = namespace(state.frames)
    dtype = state.frames.dtype
    a, b = (
        state.frames[i, ...] if f is None else xp.astype(xp.asarray(f), dtype, copy=False)
        for i, f in enumerate((last_but_one, last))
    )
    total = sum(rewards[1:], rewards[0]) if rewards else None  # no 0 + r: a -0.0 stays
    return state._replace(frames=stop_gradient(xp.stack([a, b]))), (xp.maximum(a, b), total)


def max_and_skip(
    state: MaxFrames,
    rewards: tuple[Array, ...],
    terminated: tuple[Array, ...],
    truncated: tuple[Array, ...],
    obs: tuple[Array, Array],
    final_obs: tuple[Array, Array] | None = None,
) -> tuple[MaxFrames, SkipOutput]:
    """A vector env's ``skip`` steps (values per step; ``obs`` and SAME_STEP's ``final_obs``
    of the last two): each env's call ends at its first done, later rewards wait."""
    xp = namespace(state.frames)
    ends = [t | u for t, u in zip(terminated, truncated)]
    alive = [xp.ones_like(terminated[0])]  # per step, the envs whose call still runs
    for end in ends[:-1]:
        alive.append(alive[-1] & ~end)
    total, pending = state.pending, xp.zeros_like(state.pending)
    for live, reward in zip(alive, rewards):
        r = xp.astype(reward, total.dtype, copy=False)
        total = total + xp.where(live, r, xp.zeros_like(r))
        pending = pending + xp.where(live, xp.zeros_like(r), r)
    term, trunc = alive[0] & terminated[0], alive[0] & truncated[0]
    for live, t, u in zip(alive[1:], terminated[1:], truncated[1:]):
        term, trunc = term | (live & t), trunc | (live & u)
    dtype = state.frames.dtype
    frames = [xp.astype(o, dtype, copy=False) for o in obs]
    seen = []
    for j, (i, frame) in enumerate(zip((len(rewards) - 2, len(rewards) - 1), frames)):
        if final_obs is not None:  # a done step's own frame is its final observation
            frame = select_rows(ends[i], xp.astype(final_obs[j], dtype, copy=False), frame)
        seen.append(select_rows(alive[i], frame, state.frames[j, ...]))
    pooled = xp.maximum(seen[0], seen[1])
    state = MaxFrames(frames=stop_gradient(xp.stack(seen)), pending=stop_gradient(pending))
    total = xp.astype(total, rewards[0].dtype, copy=False)
    if final_obs is None:
        return state, SkipOutput(pooled, total, term, trunc, None)
    # The new episode's frames: the last step's alone if it was the reset step.
    fresh = select_rows(ends[-1], frames[1], xp.maximum(*frames))
    out = select_rows(term | trunc, fresh, pooled)
    return state, SkipOutput(out, total, term, trunc, pooled)
