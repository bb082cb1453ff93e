"""FrameStackObservation's transform: each env's last ``depth`` frames in a ring.

A short episode is padded in front as Gymnasium pads: with its first frame
(``pad_with_first``) or with the padding frame.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import frame_stack_observation as T
    >>> s = T.init_frame_stack(1, 3, (), xp=np, dtype=np.int64)
    >>> s, out = T.reset_frame_stack(s, np.array([10]), pad_with_first=True)
    >>> out
    array([[10, 10, 10]])
    >>> for frame in (11, 12, 13):
    ...     s, out = T.push_frame(s, np.array([frame]), pad_with_first=True)
    >>> out
    array([[11, 12, 13]])
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.time_limit import select_rows, zero_rows
from anywrap.xp import Array, constant, device, namespace, select, stop_gradient
from anywrap.xp.images import write_rows

__all__ = [
    "FrameStack",
    "append_frame",
    "init_frame_stack",
    "push_frame",
    "push_frame_with_final",
    "read_stack",
    "reset_frame_stack",
]


class FrameStack(NamedTuple):
    """Every env's ring of ``depth`` rows, then the padding frame; per env the ``newest``
    slot, the episode's frame ``count``, and ``restart``: the next frame starts one."""

    frames: Array
    newest: Array
    count: Array
    restart: Array


def init_frame_stack(
    num_envs: int,
    depth: int,
    frame_shape: tuple[int, ...],
    *,
    xp: ModuleType,
    dtype: Any,
    device: Any = None,
    padding: Array | None = None,
) -> FrameStack:
    """Empty rings of ``depth`` frames; ``padding`` (default zeros) pads short episodes."""
    frames = xp.zeros((num_envs * depth + 1, *frame_shape), dtype=dtype, device=device)
    if padding is not None:
        pad = xp.astype(xp.asarray(padding, device=device), dtype, copy=False)
        pad = xp.reshape(pad, (1, *frame_shape))
        frames = xp.concat([frames[:-1, ...], pad], axis=0)
    dtypes = (xp.int32, xp.int32, xp.bool)  # newest, count, restart
    return FrameStack(frames, *(xp.zeros((num_envs,), dtype=d, device=device) for d in dtypes))


def _depth(state: FrameStack) -> tuple[int, int]:
    n = state.newest.shape[0]
    return n, (state.frames.shape[0] - 1) // n


def _flat(newest: Array, depth: int) -> Array:
    xp = namespace(newest)
    return xp.arange(newest.shape[0], dtype=xp.int32, device=device(newest)) * depth + newest


def _write(state: FrameStack, obs: Array, advance: Array | bool, start: Array | bool) -> FrameStack:
    """Write each env's frame (a fresh slot where ``advance``); ``start`` begins an episode."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    step = int(advance) if isinstance(advance, bool) else xp.astype(advance, xp.int32, copy=False)
    newest = (state.newest + step) % depth
    grown = xp.clip(state.count + step, None, depth)  # traced whole, as maximum is not
    count = xp.ones_like(grown) if start is True else xp.where(start, xp.ones_like(grown), grown)
    rows = xp.astype(xp.reshape(obs, (n, *state.frames.shape[1:])), state.frames.dtype, copy=False)
    frames = write_rows(state.frames, _flat(newest, depth), stop_gradient(rows))
    return state._replace(frames=frames, newest=newest, count=count)


def _read(state: FrameStack, obs: Array, pad_with_first: bool) -> Array:
    """:func:`read_stack`, this step's frame from ``obs`` itself where it carries a gradient."""
    stacked = read_stack(state, pad_with_first=pad_with_first)
    if stop_gradient(obs) is obs:
        return stacked
    xp = namespace(stacked)
    n, depth = _depth(state)
    fresh = _slots(state, pad_with_first, state.count) == _flat(state.newest, depth)[:, None]
    rows = xp.astype(xp.reshape(obs, (n, 1, *state.frames.shape[1:])), stacked.dtype, copy=False)
    return select_rows(fresh, rows, stacked)


def _slots(state: FrameStack, pad_with_first: bool, count: Array) -> Array:
    """Flat indices ``(num_envs, depth)`` of each env's stack, oldest first."""
    xp, dev = namespace(state.newest), device(state.newest)
    n, depth = _depth(state)
    age = xp.arange(depth - 1, -1, -1, dtype=xp.int32, device=dev)[None, :]
    newest = state.newest[:, None]
    ring = (newest - age + depth) % depth
    have = age < count[:, None]
    base = xp.arange(n, dtype=xp.int32, device=dev)[:, None] * depth
    if pad_with_first:
        first = (newest - count[:, None] + 1 + depth) % depth
        return base + xp.where(have, ring, first)
    return select(have, base + ring, constant(base, n * depth))  # no array made from the host


def read_stack(state: FrameStack, *, pad_with_first: bool) -> Array:
    """Each env's stack ``(num_envs, depth, *frame)``, oldest frame first (one gather)."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    flat = xp.reshape(_slots(state, pad_with_first, state.count), (-1,))
    return xp.reshape(xp.take(state.frames, flat, axis=0), (n, depth, *state.frames.shape[1:]))


def reset_frame_stack(
    state: FrameStack, obs: Array, mask: Array | None = None, *, pad_with_first: bool
) -> tuple[FrameStack, Array]:
    """Start an episode with ``obs`` in the rows of ``mask`` (all when ``None``)."""
    if mask is not None:
        frames = state.frames
        xp = namespace(frames)
        n, depth = _depth(state)
        kept = xp.take(frames, _flat(state.newest, depth), axis=0)  # rewritten as they are
        rows = xp.astype(xp.reshape(obs, (n, *frames.shape[1:])), frames.dtype, copy=False)
        obs = select_rows(mask, rows, kept)
    start = True if mask is None else mask
    (restart,) = zero_rows(mask, state.restart)
    state = _write(state, obs, start, start)._replace(restart=restart)
    return state, _read(state, obs, pad_with_first)


def append_frame(
    state: FrameStack, obs: Array, *, start: Array | None = None, done: Array | None = None
) -> FrameStack:
    """Write each env's frame ``obs``; rows in ``start`` or done before begin an episode."""
    begin = state.restart if start is None else (state.restart | start)
    restart = done if done is not None else namespace(state.restart).zeros_like(state.restart)
    return _write(state, obs, True, begin)._replace(restart=restart)


def push_frame(
    state: FrameStack,
    obs: Array,
    *,
    pad_with_first: bool,
    start: Array | None = None,
    done: Array | None = None,
) -> tuple[FrameStack, Array]:
    """:func:`append_frame`, then :func:`read_stack`: ``(state, stacked)``."""
    state = append_frame(state, obs, start=start, done=done)
    return state, _read(state, obs, pad_with_first)


def push_frame_with_final(
    state: FrameStack, obs: Array, final_obs: Array, done: Array, *, pad_with_first: bool
) -> tuple[FrameStack, Array, Array]:
    """SAME_STEP: ``(state, stacked, final_stacked)``; ``done`` rows begin anew with ``obs``."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    final_count = xp.clip(state.count + 1, None, depth)
    state = _write(state, obs, True, done)._replace(restart=xp.zeros_like(state.restart))
    stacked = _read(state, obs, pad_with_first)
    frame = state.frames.shape[1:]
    final = xp.astype(xp.reshape(final_obs, (n, 1, *frame)), state.frames.dtype, copy=False)
    final = select_rows(done, final, stacked[:, -1:, ...])
    if depth == 1:
        return state, stacked, final
    older = xp.reshape(_slots(state, pad_with_first, final_count)[:, :-1], (-1,))
    before = xp.reshape(xp.take(state.frames, older, axis=0), (n, depth - 1, *frame))
    return state, stacked, xp.concat([before, final], axis=1)
