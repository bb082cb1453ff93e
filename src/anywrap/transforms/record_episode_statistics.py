"""RecordEpisodeStatistics's transform: each environment's running return, length and wall
time, and a newest-first buffer of the recent finished episodes (Gymnasium's ``deque``,
pushed without a host sync), on the data's device.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import record_episode_statistics as T
    >>> s = T.init_episodes((2,), xp=np, buffer_length=4)
    >>> s, out = T.step_episodes(
    ...     s, np.array([1.0, 2.0]), np.array([True, False]), np.array([False, False]), now=0.5)
    >>> out.done, out.returns, out.lengths
    (array([ True, False]), array([1., 0.]), array([1, 0]))
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any, NamedTuple

from anywrap.transforms.moments import Reduce, add_count
from anywrap.transforms.time_limit import zero_rows
from anywrap.xp import (
    Array,
    clip,
    constant,
    count_true,
    device,
    last_true_indices,
    namespace,
    push_front,
    push_true,
    round_decimals,
    select,
    stop_gradient,
    take,
    wide_float,
)

__all__ = [
    "EpisodeOutput",
    "Episodes",
    "Gather",
    "LastEpisodes",
    "episode_total",
    "init_episodes",
    "init_last_episodes",
    "reset_episodes",
    "shift_clock",
    "step_episodes",
    "update_last_episodes",
]


Gather = Callable[[Array], Array]
"""Concatenates a 1-D array over the participants of a distributed batch, in order."""


class Episodes(NamedTuple):
    """Per-environment running sums; the newest-first ``recent_*`` buffers, ``recent_size``
    of them filled; the episodes finished, as two words of the widest float."""

    returns: Array
    lengths: Array
    start_time: Array
    prev_done: Array
    recent_returns: Array
    recent_lengths: Array
    recent_times: Array
    recent_size: Array
    episode_count: Array
    episode_count_lo: Array


class EpisodeOutput(NamedTuple):
    """What a step reports: per-env values, zero where ``done`` is False."""

    returns: Array
    lengths: Array
    times: Array
    done: Array


class LastEpisodes(NamedTuple):
    """Each environment's most recent finished episode, ``valid`` once it has one."""

    returns: Array
    lengths: Array
    valid: Array


def episode_total(state: Episodes) -> Array:
    """Episodes finished so far, as one 0-d array (the two words summed)."""
    return state.episode_count + state.episode_count_lo


def init_last_episodes(episodes: Episodes) -> LastEpisodes:
    """No finished episode yet, shaped and typed like ``episodes``' running sums."""
    return LastEpisodes(*zero_rows(None, episodes.returns, episodes.lengths, episodes.prev_done))


def update_last_episodes(last: LastEpisodes, out: EpisodeOutput) -> LastEpisodes:
    """Keep the episodes that ended in ``out``; one elementwise pass, any batch size."""
    xp = namespace(out.done)
    return LastEpisodes(
        returns=xp.where(out.done, xp.astype(out.returns, last.returns.dtype), last.returns),
        lengths=xp.where(out.done, xp.astype(out.lengths, last.lengths.dtype), last.lengths),
        valid=xp.logical_or(last.valid, out.done),
    )


def init_episodes(
    batch_shape: tuple[int, ...],
    *,
    xp: ModuleType,
    buffer_length: int = 100,
    device: Any = None,
    now: float = 0.0,
) -> Episodes:
    """Zeroed statistics; episode clocks started at ``now`` (seconds)."""
    wide = wide_float(xp, device)
    steps = xp.int64 if wide == xp.float64 else xp.int32
    zeros = partial(xp.zeros, device=device)
    return Episodes(
        returns=zeros(batch_shape, dtype=wide),
        lengths=zeros(batch_shape, dtype=steps),
        start_time=xp.full(batch_shape, now, dtype=wide, device=device),
        prev_done=zeros(batch_shape, dtype=xp.bool),
        recent_returns=zeros((buffer_length,), dtype=wide),
        recent_lengths=zeros((buffer_length,), dtype=steps),
        recent_times=zeros((buffer_length,), dtype=wide),
        recent_size=zeros((), dtype=xp.int32),
        episode_count=zeros((), dtype=wide),
        episode_count_lo=zeros((), dtype=wide),
    )


def _instant(xp: ModuleType, now: Any, times: Array) -> Any:
    """``now`` beside ``times``: a Python number as it is (an array made from it would be a
    copy from the host, which on CUDA waits for the stream), else in their dtype."""
    if type(now) in (float, int):
        return now
    return xp.asarray(now, dtype=times.dtype, device=device(times))


def reset_episodes(state: Episodes, mask: Array | None, now: float) -> Episodes:
    """Restart the episodes of the environments in ``mask`` (all if ``None``) at ``now``."""
    xp = namespace(state.returns)
    start = _instant(xp, now, state.start_time)
    returns, lengths, prev_done = zero_rows(mask, state.returns, state.lengths, state.prev_done)
    if mask is None:
        start_time = xp.zeros_like(state.start_time) + start
    else:
        start_time = xp.where(mask, start, state.start_time)
    return Episodes(returns, lengths, start_time, prev_done, *state[4:])


def step_episodes(
    state: Episodes,
    reward: Array,
    terminated: Array,
    truncated: Array,
    now: Any = 0.0,
    *,
    same_step: bool = False,
    report: bool = True,
    timed: bool = True,
    reduce: Reduce | None = None,
    gather: Gather | None = None,
) -> tuple[Episodes, EpisodeOutput | None]:
    """Advance every environment's episode by one step.

    Args:
        now: The wall time in seconds; the time reported is ``round(now - start, 6)``.
        same_step: SAME_STEP autoreset (a done env restarts at once; otherwise the
            step after a done does).
        report: ``False`` (no episode ended, as the caller knows) skips the report,
            the buffer and the count, and returns ``None`` for the output.
        timed: ``False`` (no clock) leaves the times alone.
        reduce, gather: A sum and a concatenation over the participants of a split
            batch: the count and the buffer are then the whole batch's.
    """
    xp = namespace(state.returns)
    if type(reward) not in (float, int):  # a Python number takes the array's dtype
        if getattr(reward, "dtype", None) != state.returns.dtype:
            reward = xp.astype(xp.asarray(reward), state.returns.dtype)
        reward = stop_gradient(reward)
    returns, lengths, start = state.returns, state.lengths, state.start_time
    if same_step and not report:  # nothing ended: the bare sums, and no env done
        return Episodes(
            returns + reward, lengths + 1, start, xp.zeros_like(state.prev_done), *state[4:]
        ), None
    terminated, truncated = xp.asarray(terminated), xp.asarray(truncated)
    bools = terminated.dtype == truncated.dtype == xp.bool  # then one kernel: `|`
    done = terminated | truncated if bools else xp.logical_or(terminated, truncated)
    now = _instant(xp, now, start)
    zero, zero_steps = constant(returns, 0.0), constant(lengths, 0)
    returns, lengths = returns + reward, lengths + constant(lengths, 1)
    if not same_step:  # the step after a done is the reset step: restart there
        returns = select(state.prev_done, zero, returns)
        lengths = select(state.prev_done, zero_steps, lengths)
        start = select(state.prev_done, now, start)
    new = state._replace(returns=returns, lengths=lengths, start_time=start, prev_done=done)
    if not report:
        return new, None
    elapsed = round_decimals(now - start, 6)
    out = EpisodeOutput(
        returns=select(done, returns, zero),
        lengths=select(done, lengths, zero_steps),
        times=select(done, elapsed, constant(elapsed, 0.0)),
        done=done,
    )
    # Count the episodes that ended and push them into the buffers (the times if timed).
    size = state.recent_returns.shape[0]
    if size and (reduce is None) != (gather is None):
        raise ValueError(
            "step_episodes: a recent-episode buffer over a split batch needs both `reduce` "
            "(for the count) and `gather` (for the buffer)"
        )
    flat_done = done if done.ndim == 1 else xp.reshape(done, (-1,))
    k_here = count_true(flat_done)  # a Python int on the host
    k = k_here if reduce is None else reduce(k_here)
    k_count = k if isinstance(k, int) else xp.astype(k, state.episode_count.dtype)
    hi, lo, _ = add_count(state.episode_count, state.episode_count_lo, k_count)
    if size == 0:  # no buffer: only count
        new = new._replace(episode_count=hi, episode_count_lo=lo)
    else:
        # Gymnasium appends in ascending env order: the highest index is the newest.
        values = tuple(
            v if v.ndim == 1 else xp.reshape(v, (-1,))
            for v in (returns, lengths, *((elapsed,) if timed else ()))
        )
        buffers = (state.recent_returns, state.recent_lengths, state.recent_times)[: len(values)]
        if gather is None:
            pushed = push_true(flat_done, buffers, values, k)
        else:
            # Each participant offers its `size` newest, oldest first (a zero length marks
            # an empty slot): the last `size` gathered are the batch's newest.
            order = last_true_indices(flat_done, size)
            j = xp.arange(size, device=device(order))
            fresh = [xp.flip(take(v, order), axis=0) for v in values]
            fresh[1] = xp.where(xp.flip(j < k_here, axis=0), fresh[1], 0)
            fresh = [gather(f) for f in fresh]
            newest = last_true_indices(fresh[1] > 0, size)
            pushed = push_front(buffers, tuple(take(f, newest) for f in fresh), k)
        k_size = k if isinstance(k, int) else xp.astype(k, state.recent_size.dtype)
        new = new._replace(
            recent_returns=pushed[0],
            recent_lengths=pushed[1],
            recent_times=pushed[2] if timed else state.recent_times,
            recent_size=clip(state.recent_size + k_size, None, constant(state.recent_size, size)),
            episode_count=hi,
            episode_count_lo=lo,
        )
    if same_step:  # the done envs were reset within this step: restart them now
        new = new._replace(
            returns=select(done, zero, returns),
            lengths=select(done, zero_steps, lengths),
            start_time=select(done, now, start) if timed else start,
        )
    return new, out


def shift_clock(state: Episodes, seconds: float) -> Episodes:
    """Move every start time by ``seconds`` (checkpoints store them relative to the save)."""
    start = state.start_time
    return state._replace(start_time=start + namespace(start).asarray(seconds, dtype=start.dtype))
