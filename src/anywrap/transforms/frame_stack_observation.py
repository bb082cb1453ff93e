"""FrameStackObservation's transform: each env's last ``depth`` frames in a ring buffer.

Each env keeps its last ``depth`` frames in a ring of ``depth`` slots; all
rings and one padding frame share one array (:class:`FrameStack`). A step
writes each env's new frame into one slot (the ring's oldest) and moves that
env's ``newest`` pointer: no frame is copied inside the buffer, whatever the
depth. The stacked observation, oldest frame first, is then read out with one
gather of ``depth`` frames per env: that read is the output's own memory (the
caller keeps it, so it cannot be a view of a buffer that the next step
overwrites). The buffer holds each frame once.

The write is the one place where a transform reuses its input's memory:
:func:`anywrap.xp.images.write_rows` writes in place on NumPy and PyTorch,
and on JAX inside a step compiled with buffer donation. A state passed to a
step must not be used again; the shells hand out copies (``state_dict``).

An episode that has seen fewer than ``depth`` frames is padded in front, as
Gymnasium's ``FrameStackObservation`` pads:

* ``pad_with_first=True`` (``padding_type="reset"``): with the episode's first
  frame, read from its slot (it stays in the ring until ``depth`` frames
  follow it, when no padding is needed any more);
* ``pad_with_first=False`` (``"zero"`` or a custom observation): with the
  padding frame stored after the rings.

Partial resets are per env: a row whose frame starts an episode sets its
``count`` to 1, so nothing of its previous episode is read again; nothing
else in the buffer moves.

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

from anywrap.xp import Array, device, namespace, stop_gradient
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
    """The frame rings of ``num_envs`` envs."""

    frames: Array
    """``(num_envs * depth + 1, *frame)``: env ``n``'s ring in rows ``n * depth`` to
    ``n * depth + depth - 1``, then the padding frame."""
    newest: Array
    """``(num_envs,)`` int32, the ring slot of each env's newest frame."""
    count: Array
    """``(num_envs,)`` int32, frames of the current episode in the ring (1 to
    ``depth``; 0 before the first reset)."""
    restart: Array
    """``(num_envs,)`` bool, whether the next frame starts a new episode (NEXT_STEP
    autoreset: the step after a done)."""


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
    """Empty rings of ``depth`` frames for ``num_envs`` envs; ``padding`` (a frame)
    pads short episodes when ``pad_with_first`` is off (default zeros)."""
    frames = xp.zeros((num_envs * depth + 1, *frame_shape), dtype=dtype, device=device)
    if padding is not None:
        pad = xp.reshape(
            xp.astype(xp.asarray(padding, device=device), dtype, copy=False), (1, *frame_shape)
        )
        frames = xp.concat([frames[:-1, ...], pad], axis=0)
    return FrameStack(
        frames=frames,
        newest=xp.zeros((num_envs,), dtype=xp.int32, device=device),
        count=xp.zeros((num_envs,), dtype=xp.int32, device=device),
        restart=xp.zeros((num_envs,), dtype=xp.bool, device=device),
    )


def _depth(state: FrameStack) -> tuple[int, int]:
    n = state.newest.shape[0]
    return n, (state.frames.shape[0] - 1) // n


def _write(state: FrameStack, obs: Array, advance: Array | bool, start: Array | bool) -> FrameStack:
    """Write each env's frame; rows with ``advance`` take a fresh slot, the others
    overwrite their newest frame; rows with ``start`` begin an episode."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    step = (
        xp.astype(advance, xp.int32, copy=False) if not isinstance(advance, bool) else int(advance)
    )
    newest = (state.newest + step) % depth
    grown = xp.clip(state.count + step, None, depth)  # traced whole, as maximum is not
    count = (
        xp.where(start, xp.ones_like(grown), grown)
        if not isinstance(start, bool)
        else (xp.ones_like(grown) if start else grown)
    )
    flat = xp.arange(n, dtype=xp.int32, device=device(state.newest)) * depth + newest
    rows = xp.astype(xp.reshape(obs, (n, *state.frames.shape[1:])), state.frames.dtype, copy=False)
    # The ring holds values (docs/guide/gradients.md): a graph written in would chain
    # every step's write to the last; the output takes this step's graph (_through).
    frames = write_rows(state.frames, flat, stop_gradient(rows))
    return state._replace(frames=frames, newest=newest, count=count)


def _through(state: FrameStack, stacked: Array, obs: Array, pad_with_first: bool) -> Array:
    """``stacked`` with the slots of this step's frame taken from ``obs`` itself, where
    ``obs`` carries a gradient, so that it flows to this step's frame (to the frames of
    earlier steps, held as values, it does not)."""
    if stop_gradient(obs) is obs:  # no graph (NumPy, a tensor without one): as read
        return stacked
    xp = namespace(stacked)
    n, depth = _depth(state)
    frame = state.frames.shape[1:]
    newest = xp.arange(n, dtype=xp.int32, device=device(state.newest)) * depth + state.newest
    fresh = _slots(state, pad_with_first) == newest[:, None]
    rows = xp.astype(xp.reshape(obs, (n, 1, *frame)), stacked.dtype, copy=False)
    return xp.where(xp.reshape(fresh, (n, depth) + (1,) * len(frame)), rows, stacked)


def _slots(state: FrameStack, pad_with_first: bool, count: Array | None = None) -> Array:
    """Flat indices ``(num_envs, depth)`` of each env's stack, oldest first."""
    xp = namespace(state.newest)
    n, depth = _depth(state)
    count = state.count if count is None else count
    dev = device(state.newest)
    age = xp.arange(depth - 1, -1, -1, dtype=xp.int32, device=dev)[None, :]
    newest = state.newest[:, None]
    ring = (newest - age + depth) % depth
    have = age < count[:, None]
    base = xp.arange(n, dtype=xp.int32, device=dev)[:, None] * depth
    if pad_with_first:
        first = (newest - count[:, None] + 1 + depth) % depth
        return base + xp.where(have, ring, first)
    return xp.where(have, base + ring, xp.asarray(n * depth, dtype=xp.int32, device=dev))


def read_stack(state: FrameStack, *, pad_with_first: bool) -> Array:
    """Each env's stack ``(num_envs, depth, *frame)``, oldest frame first (one gather)."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    flat = xp.reshape(_slots(state, pad_with_first), (-1,))
    return xp.reshape(xp.take(state.frames, flat, axis=0), (n, depth, *state.frames.shape[1:]))


def reset_frame_stack(
    state: FrameStack, obs: Array, mask: Array | None = None, *, pad_with_first: bool
) -> tuple[FrameStack, Array]:
    """Start an episode with ``obs`` in the rows of ``mask`` (all rows without one).

    A row left out of a partial reset keeps its stack as it was (a vector env
    returns that row's current observation again; it is not read).

    Returns:
        ``(state, stacked)``.
    """
    if mask is None:
        state = _write(state, obs, True, True)
        xp = namespace(state.restart)
        state = state._replace(restart=xp.zeros_like(state.restart))
    else:
        xp = namespace(state.frames)
        n, depth = _depth(state)
        newest = xp.arange(n, dtype=xp.int32, device=device(state.newest)) * depth + state.newest
        frame = state.frames.shape[1:]
        kept = xp.take(state.frames, newest, axis=0)  # rewritten as they are
        rows = xp.astype(xp.reshape(obs, (n, *frame)), state.frames.dtype, copy=False)
        rows = xp.where(xp.reshape(mask, (n,) + (1,) * len(frame)), rows, kept)
        state = _write(state, rows, mask, mask)
        state = state._replace(restart=state.restart & ~mask)
        obs = rows
    return state, _through(
        state, read_stack(state, pad_with_first=pad_with_first), obs, pad_with_first
    )


def append_frame(
    state: FrameStack,
    obs: Array,
    *,
    start: Array | None = None,
    done: Array | None = None,
) -> FrameStack:
    """The state update of a step: each env's new frame ``obs`` (``(num_envs, *frame)``)
    written into its ring, one frame per env, nothing else moved.

    Rows where ``start`` is True, or where the previous step's ``done`` said
    so (NEXT_STEP autoreset: the frame after a done is a reset frame), begin
    a new episode with this frame. ``done`` (this step's ``terminated |
    truncated``, NEXT_STEP only) marks the rows whose next frame will.
    """
    begin = state.restart if start is None else (state.restart | start)
    state = _write(state, obs, True, begin)
    restart = done if done is not None else namespace(state.restart).zeros_like(state.restart)
    return state._replace(restart=restart)


def push_frame(
    state: FrameStack,
    obs: Array,
    *,
    pad_with_first: bool,
    start: Array | None = None,
    done: Array | None = None,
) -> tuple[FrameStack, Array]:
    """:func:`append_frame`, then :func:`read_stack`.

    Returns:
        ``(state, stacked)``.
    """
    state = append_frame(state, obs, start=start, done=done)
    return state, _through(
        state, read_stack(state, pad_with_first=pad_with_first), obs, pad_with_first
    )


def push_frame_with_final(
    state: FrameStack,
    obs: Array,
    final_obs: Array,
    done: Array,
    *,
    pad_with_first: bool,
) -> tuple[FrameStack, Array, Array]:
    """SAME_STEP autoreset: rows with ``done`` ended an episode on ``final_obs``
    and begin a new one with ``obs`` (a reset observation); the others append ``obs``.

    Returns:
        ``(state, stacked, final_stacked)``: ``final_stacked`` is the stack the
        finished episode ended on (meaningful where ``done``; elsewhere it
        equals ``stacked``). Its older frames are read from the ring, which
        the new frame did not touch.
    """
    xp = namespace(state.frames)
    n, depth = _depth(state)
    final_count = xp.clip(state.count + 1, None, depth)
    state = _write(state, obs, True, done)
    state = state._replace(restart=xp.zeros_like(state.restart))
    stacked = _through(state, read_stack(state, pad_with_first=pad_with_first), obs, pad_with_first)
    frame = state.frames.shape[1:]
    final = xp.astype(xp.reshape(final_obs, (n, 1, *frame)), state.frames.dtype, copy=False)
    final = xp.where(xp.reshape(done, (n, 1) + (1,) * len(frame)), final, stacked[:, -1:, ...])
    if depth == 1:
        return state, stacked, final
    older = _slots(state, pad_with_first, final_count)[:, :-1]
    before = xp.reshape(
        xp.take(state.frames, xp.reshape(older, (-1,)), axis=0), (n, depth - 1, *frame)
    )
    return state, stacked, xp.concat([before, final], axis=1)
