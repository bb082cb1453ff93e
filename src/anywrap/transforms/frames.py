"""Frame stacks as ring buffers, and Gymnasium's max-and-skip, over batches of envs.

**Frame stack.** Each env keeps its last ``depth`` frames in a ring of
``depth`` slots; all rings and one padding frame share one array
(:class:`FrameStack`). A step writes each env's new frame into one slot (the
ring's oldest) and moves that env's ``newest`` pointer: no frame is copied
inside the buffer, whatever the depth. The stacked observation, oldest frame
first, is then read out with one gather of ``depth`` frames per env: that
read is the output's own memory (the caller keeps it, so it cannot be a view
of a buffer that the next step overwrites) and it costs what any stacked
output costs. The buffer holds each frame once.

The write is the one place where a transform reuses its input's memory:
:func:`anywrap.xp.images.write_rows` writes in place on NumPy and PyTorch,
and on JAX inside a step compiled with buffer donation
(``anywrap.xp.Compiled(fn, donate=True)``). A state passed to a step must
not be used again; the shells hand out copies (``state_dict``).

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

**Max and skip.** Gymnasium's ``MaxAndSkipObservation`` keeps the frames of
the last two of ``skip`` repeated steps and returns their element-wise
maximum (:class:`MaxFrames`, :func:`max_and_skip`).

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import frames as fr
    >>> s = fr.init_frame_stack(1, 3, (), xp=np, dtype=np.int64)
    >>> s, out = fr.reset_frame_stack(s, np.array([10]), pad_with_first=True)
    >>> out
    array([[10, 10, 10]])
    >>> s, out = fr.push_frame(s, np.array([11]), pad_with_first=True)
    >>> s, out = fr.push_frame(s, np.array([12]), pad_with_first=True)
    >>> s, out = fr.push_frame(s, np.array([13]), pad_with_first=True)
    >>> out
    array([[11, 12, 13]])
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from anywrap.xp import Array, device, namespace
from anywrap.xp.images import write_rows

__all__ = [
    "FrameStack",
    "MaxFrames",
    "SkipOutput",
    "append_frame",
    "frame_stack_bytes",
    "init_frame_stack",
    "init_max_frames",
    "max_and_skip",
    "max_of_two",
    "push_frame",
    "push_frame_with_final",
    "read_stack",
    "reset_frame_stack",
    "reset_max_frames",
]


# --------------------------------------------------------------- frame stack
class FrameStack(NamedTuple):
    """The frame rings of ``num_envs`` envs.

    Attributes:
        frames: ``(num_envs * depth + 1, *frame)``: env ``n``'s ring in rows
            ``n * depth`` to ``n * depth + depth - 1``, then the padding frame.
        newest: ``(num_envs,)`` int32, the ring slot of each env's newest frame.
        count: ``(num_envs,)`` int32, frames of the current episode in the
            ring (1 to ``depth``; 0 before the first reset).
        restart: ``(num_envs,)`` bool, whether the next frame starts a new
            episode (NEXT_STEP autoreset: the step after a done).
    """

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
    """Empty rings of ``depth`` frames for ``num_envs`` envs; ``padding`` (a frame)
    pads short episodes when ``pad_with_first`` is off (default zeros)."""
    frames = xp.zeros((num_envs * depth + 1, *frame_shape), dtype=dtype, device=device)
    if padding is not None:
        pad = xp.reshape(xp.astype(xp.asarray(padding, device=device), dtype, copy=False), (1, *frame_shape))
        frames = xp.concat([frames[:-1, ...], pad], axis=0)
    return FrameStack(
        frames=frames,
        newest=xp.zeros((num_envs,), dtype=xp.int32, device=device),
        count=xp.zeros((num_envs,), dtype=xp.int32, device=device),
        restart=xp.zeros((num_envs,), dtype=xp.bool, device=device),
    )


def frame_stack_bytes(state: FrameStack) -> int:
    """Bytes the state holds (frames, padding frame and pointers)."""
    return sum(int(a.size) * _itemsize(a) for a in state)


def _itemsize(a: Array) -> int:
    size = getattr(a.dtype, "itemsize", None)
    if size is None:  # torch dtypes have no itemsize before 2.1
        size = a.element_size()
    return int(size)


def _depth(state: FrameStack) -> tuple[int, int]:
    n = state.newest.shape[0]
    return n, (state.frames.shape[0] - 1) // n


def _write(state: FrameStack, obs: Array, advance: Array | bool, start: Array | bool) -> FrameStack:
    """Write each env's frame; rows with ``advance`` take a fresh slot, the others
    overwrite their newest frame; rows with ``start`` begin an episode."""
    xp = namespace(state.frames)
    n, depth = _depth(state)
    step = xp.astype(advance, xp.int32, copy=False) if not isinstance(advance, bool) else int(advance)
    newest = (state.newest + step) % depth
    grown = xp.minimum(state.count + step, depth)
    count = (
        xp.where(start, xp.ones_like(grown), grown)
        if not isinstance(start, bool)
        else (xp.ones_like(grown) if start else grown)
    )
    flat = xp.arange(n, dtype=xp.int32, device=device(state.newest)) * depth + newest
    rows = xp.astype(xp.reshape(obs, (n, *state.frames.shape[1:])), state.frames.dtype, copy=False)
    frames = write_rows(state.frames, flat, rows)
    return state._replace(frames=frames, newest=newest, count=count)


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
    return state, read_stack(state, pad_with_first=pad_with_first)


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
    return state, read_stack(state, pad_with_first=pad_with_first)


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
    final_count = xp.minimum(state.count + 1, depth)
    state = _write(state, obs, True, done)
    state = state._replace(restart=xp.zeros_like(state.restart))
    stacked = read_stack(state, pad_with_first=pad_with_first)
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


# ------------------------------------------------------------- max and skip
class MaxFrames(NamedTuple):
    """Gymnasium's two-frame buffer of ``MaxAndSkipObservation``, per env.

    Attributes:
        frames: ``(2, *batch, *frame)``: the frames of the last-but-one and the
            last of the ``skip`` steps (kept across calls, as Gymnasium keeps them).
        pending: ``(*batch,)``: reward of steps taken after an env's episode
            ended within a call; it belongs to the next episode and is added
            to the next call's reward (vector envs only).
    """

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
    """Drop the pending reward of the rows reset (all rows without ``mask``).

    The frames stay, as in Gymnasium (its reset does not touch the buffer).
    """
    xp = namespace(state.pending)
    if mask is None:
        return state._replace(pending=xp.zeros_like(state.pending))
    return state._replace(pending=xp.where(mask, xp.zeros_like(state.pending), state.pending))


def max_of_two(
    state: MaxFrames, last_but_one: Array | None, last: Array | None
) -> tuple[MaxFrames, Array]:
    """One env's call: store the frames given (``None``: the step was not
    reached, the slot keeps its old frame) and return the maximum of the two slots."""
    xp = namespace(state.frames)
    dtype = state.frames.dtype
    a = state.frames[0, ...] if last_but_one is None else xp.astype(xp.asarray(last_but_one), dtype, copy=False)
    b = state.frames[1, ...] if last is None else xp.astype(xp.asarray(last), dtype, copy=False)
    return state._replace(frames=xp.stack([a, b])), xp.maximum(a, b)


def max_and_skip(
    state: MaxFrames,
    rewards: tuple[Array, ...],
    terminated: tuple[Array, ...],
    truncated: tuple[Array, ...],
    obs: tuple[Array, Array],
    final_obs: tuple[Array, Array] | None = None,
) -> tuple[MaxFrames, SkipOutput]:
    """A vector env's ``skip`` steps, each env seen as Gymnasium's wrapper sees one env.

    Per env, the call ends at its first ``terminated | truncated``: the reward
    is summed up to there, the flags are those of that step, and the frames
    of the last two steps are stored only while the episode runs (an episode
    that ends early leaves older frames in the buffer, as in Gymnasium).
    Steps after the end belong to the env's next episode (a vector env steps
    every env): their reward waits in ``pending`` for the next call.

    Args:
        rewards, terminated, truncated: The ``skip`` steps' values, ``(num_envs,)`` each.
        obs: The observations of the last two steps.
        final_obs: SAME_STEP autoreset only: ``info["final_obs"]`` of the last
            two steps (as batches; meaningful where that step is done). Then
            ``obs`` of the output is the new episode's (max of its frames in
            the last two steps), and ``final_obs`` the finished one's.
    """
    xp = namespace(state.frames)
    skip = len(rewards)
    running = None
    total = state.pending
    pending = xp.zeros_like(state.pending)
    term = trunc = None
    alive: list[Array] = []
    for i in range(skip):
        live = xp.ones_like(terminated[i]) if running is None else running
        alive.append(live)
        r = xp.astype(rewards[i], total.dtype, copy=False)
        total = total + xp.where(live, r, xp.zeros_like(r))
        pending = pending + xp.where(live, xp.zeros_like(r), r)
        t_i, u_i = live & terminated[i], live & truncated[i]
        term = t_i if term is None else term | t_i
        trunc = u_i if trunc is None else trunc | u_i
        running = live & ~(terminated[i] | truncated[i])
    assert term is not None and trunc is not None
    frame_ndim = state.frames.ndim - 1 - state.pending.ndim

    def rows(mask: Array) -> Array:
        return xp.reshape(mask, tuple(mask.shape) + (1,) * frame_ndim)

    dtype = state.frames.dtype
    seen = []
    for j, i in enumerate((skip - 2, skip - 1)):
        frame = xp.astype(obs[j], dtype, copy=False)
        if final_obs is not None:  # a done step's own frame is its final observation
            done_i = terminated[i] | truncated[i]
            frame = xp.where(rows(done_i), xp.astype(final_obs[j], dtype, copy=False), frame)
        seen.append(xp.where(rows(alive[i]), frame, state.frames[j, ...]))
    pooled = xp.maximum(seen[0], seen[1])
    state = MaxFrames(frames=xp.stack(seen), pending=pending)
    total = xp.astype(total, rewards[0].dtype, copy=False)
    if final_obs is None:
        return state, SkipOutput(pooled, total, term, trunc, None)
    done = term | trunc
    # The new episode's frames: the last step's alone if it was the reset step.
    last_done = terminated[skip - 1] | truncated[skip - 1]
    a, b = xp.astype(obs[0], dtype, copy=False), xp.astype(obs[1], dtype, copy=False)
    fresh = xp.where(rows(last_done), b, xp.maximum(a, b))
    out = xp.where(rows(done), fresh, pooled)
    return state, SkipOutput(out, total, term, trunc, pooled)
