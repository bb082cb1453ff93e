"""Episode statistics: running return, length and wall time per environment,
and a buffer of the most recent finished episodes, all on the data's device.

Per step, for each environment (NEXT_STEP / DISABLED autoreset, Gymnasium's
default), the step after a done is the reset step and starts a new episode
at zero; in SAME_STEP mode a done environment restarts at zero at once.

The recent-episode buffer replaces Gymnasium's ``deque`` without a host sync:
it is newest-first, and each step pushes the finished episodes in the order
Gymnasium appends them (ascending environment index), found with
:func:`anywrap.xp.last_true_indices` instead of boolean indexing, so that
shapes never depend on the data.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms import episodes
    >>> s = episodes.init_episodes((2,), xp=np, buffer_length=4)
    >>> s, out = episodes.step_episodes(
    ...     s, np.array([1.0, 2.0]), np.array([True, False]), np.array([False, False]), now=0.5)
    >>> out.done, out.returns, out.lengths
    (array([ True, False]), array([1., 0.]), array([1, 0]))
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from anywrap.transforms.moments import Reduce, add_count
from anywrap.xp import (
    Array,
    astype,
    count_true,
    describe,
    device,
    flat,
    is_host,
    last_true_indices,
    namespace,
    push_front,
    take,
    where,
    wide_float,
)

__all__ = [
    "EpisodeOutput",
    "Episodes",
    "Gather",
    "HostRun",
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
"""Concatenates a 1-D array along axis 0 over every participant of a distributed
batch, in the participants' order (the global batch order)."""


class Episodes(NamedTuple):
    """Per-environment running episode statistics and the recent-episode buffer."""

    returns: Array
    lengths: Array
    start_time: Array
    prev_done: Array
    recent_returns: Array
    """Newest-first returns of the last ``buffer_length`` finished episodes."""
    recent_lengths: Array
    recent_times: Array
    recent_size: Array
    """How many entries of the recent buffers are filled (0-d int)."""
    episode_count: Array
    """Episodes finished so far: the high word of a double-word count (0-d,
    widest float); ``episode_count + episode_count_lo`` is exact to about 2^48
    episodes even in float32."""
    episode_count_lo: Array
    """The low word of the episode count."""


class EpisodeOutput(NamedTuple):
    """What a step reports: per-env values, zero where ``done`` is False."""

    returns: Array
    lengths: Array
    times: Array
    done: Array


class LastEpisodes(NamedTuple):
    """Each environment's most recent finished episode, and whether it has one yet."""

    returns: Array
    lengths: Array
    valid: Array
    """False until the environment's first episode ends: its values mean nothing."""


def episode_total(state: Episodes) -> Array:
    """Episodes finished so far, as one 0-d array (the two words summed)."""
    return state.episode_count + state.episode_count_lo


def init_last_episodes(episodes: Episodes) -> LastEpisodes:
    """No finished episode yet, shaped and typed like ``episodes``' running sums."""
    xp = namespace(episodes.returns)
    return LastEpisodes(
        returns=xp.zeros_like(episodes.returns),
        lengths=xp.zeros_like(episodes.lengths),
        valid=xp.zeros_like(episodes.prev_done),
    )


def update_last_episodes(last: LastEpisodes, out: EpisodeOutput) -> LastEpisodes:
    """Keep the episodes that ended in ``out``; one elementwise pass, any batch size."""
    xp = namespace(out.done)
    return LastEpisodes(
        returns=where(out.done, astype(out.returns, last.returns.dtype), last.returns),
        lengths=where(out.done, astype(out.lengths, last.lengths.dtype), last.lengths),
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

    def zeros(shape: tuple[int, ...], dtype: Any) -> Array:
        return xp.zeros(shape, dtype=dtype, device=device)

    return Episodes(
        returns=zeros(batch_shape, wide),
        lengths=zeros(batch_shape, xp.int64 if wide == xp.float64 else xp.int32),
        start_time=xp.full(batch_shape, now, dtype=wide, device=device),
        prev_done=zeros(batch_shape, xp.bool),
        recent_returns=zeros((buffer_length,), wide),
        recent_lengths=zeros((buffer_length,), xp.int64 if wide == xp.float64 else xp.int32),
        recent_times=zeros((buffer_length,), wide),
        recent_size=zeros((), xp.int32),
        episode_count=zeros((), wide),
        episode_count_lo=zeros((), wide),
    )


def reset_episodes(state: Episodes, mask: Array | None, now: float) -> Episodes:
    """Restart the episodes of the environments in ``mask`` (all if ``None``) at ``now``."""
    xp = namespace(state.returns)
    if mask is None:
        mask = xp.ones(state.returns.shape, dtype=xp.bool, device=device(state.returns))
    return state._replace(
        returns=where(mask, 0.0, state.returns),
        lengths=where(mask, 0, state.lengths),
        start_time=where(mask, xp.asarray(now, dtype=state.start_time.dtype), state.start_time),
        prev_done=where(mask, False, state.prev_done),
    )


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

    ``now`` is the wall time in seconds (a scalar or 0-d array); the reported
    time is ``round(now - start, 6)`` as in Gymnasium. ``report=False`` skips
    the report, the recent-episode buffer and the episode count, and returns
    ``None`` for the output: only valid when the caller knows that no episode
    ended (a host value it may inspect). ``timed=False`` (a caller without a
    clock) leaves the start times and the recent-episode times alone; the
    reported times then mean nothing.

    For a batch split over devices or processes (each participant passes its
    own rows), ``reduce`` (a sum over the participants) makes the episode
    count the global one, and ``gather`` (a concatenation over the
    participants, in the global batch order) the recent-episode buffer: each
    participant offers its ``buffer_length`` newest episodes, so a step
    gathers ``buffer_length`` values per participant whatever the batch size.
    A buffer over a split batch needs both. The per-env values and the report
    stay the participant's own.
    """
    if (
        reduce is None
        and _one_on_host(state.returns)
        and is_host(reward)
        and is_host(terminated)
        and is_host(truncated)
    ):  # every value on the host: branching on them reads no device
        return _step_one_on_host(
            state, reward, terminated, truncated, now, same_step, report, timed
        )
    if (
        report
        and reduce is None
        and type(state.returns) is np.ndarray
        and state.returns.ndim == 1
        and type(reward) is np.ndarray
        and type(terminated) is np.ndarray
        and type(truncated) is np.ndarray
    ):
        return _step_batch_on_host(state, reward, terminated, truncated, now, same_step, timed)
    if (
        not report
        and type(reward) is np.ndarray
        and type(state.prev_done) is np.ndarray
        and not state.prev_done.any()
    ):
        # Host values, no episode ending and none restarting (the common step of
        # a vector env on the host): the running sums are all that moves.
        if reward.dtype != state.returns.dtype:
            reward = reward.astype(state.returns.dtype)
        return Episodes(state.returns + reward, state.lengths + 1, *state[2:]), None
    xp = namespace(state.returns, reward)
    reward = xp.asarray(reward)
    if reward.dtype != state.returns.dtype:
        reward = astype(reward, state.returns.dtype)
    returns, lengths, start = state.returns, state.lengths, state.start_time
    if same_step and not report:  # nothing ended, and prev_done is not used: the bare sums
        return Episodes(returns + reward, lengths + 1, *state[2:]), None
    done = xp.logical_or(xp.asarray(terminated), xp.asarray(truncated))
    if not same_step or report:
        now = xp.asarray(now, dtype=start.dtype)
    if not same_step:  # the step after a done is the reset step: restart there
        fresh = state.prev_done
        returns = where(fresh, 0.0, returns + reward)
        lengths = where(fresh, 0, lengths + 1)
        start = where(fresh, now, start)
    else:
        returns = returns + reward
        lengths = lengths + 1
    new = state._replace(returns=returns, lengths=lengths, start_time=start, prev_done=done)
    if not report:
        return new, None
    elapsed = xp.round((now - start) * 1e6) / 1e6
    out = EpisodeOutput(
        returns=where(done, returns, 0.0),
        lengths=where(done, lengths, 0),
        times=where(done, elapsed, 0.0),
        done=done,
    )
    new = _record(new, returns, lengths, elapsed if timed else None, done, reduce, gather)
    if same_step:  # the done envs were reset within this step: restart them now
        new = new._replace(
            returns=where(done, 0.0, returns),
            lengths=where(done, 0, lengths),
            start_time=where(done, now, start) if timed else start,
        )
    return new, out


_HOST_FLOAT = np.float64
"""The type of a single env's running return on the host (a NumPy scalar)."""


def _one_on_host(returns: Any) -> bool:
    tp = type(returns)
    return tp is _HOST_FLOAT or (tp is np.ndarray and returns.ndim == 0)


def _step_one_on_host(
    state: Episodes,
    reward: Any,
    terminated: Any,
    truncated: Any,
    now: Any,
    same_step: bool,
    report: bool,
    timed: bool,
) -> tuple[Episodes, EpisodeOutput | None]:
    """:func:`step_episodes` for one env whose state and inputs are host values.

    The same formulas on NumPy scalars, with Python's own branching and a
    buffer push of at most one episode: a single env's step costs what a few
    scalar operations cost, as Gymnasium's does. (The test suite runs the
    generic path over the same steps and compares them to the bit.)
    """
    returns = state.returns + _HOST_FLOAT(reward)
    lengths = state.lengths + 1
    start = state.start_time
    if not same_step and state.prev_done:  # the reset step of NEXT_STEP autoreset
        returns, lengths, start = _HOST_FLOAT(reward), lengths * 0 + 1, start * 0 + now
    done = bool(terminated or truncated)
    if not report or not done:
        new = Episodes(returns, lengths, start, np.bool_(done), *state[4:])
        if not report:
            return new, None
        zero_f = returns * 0
        return new, EpisodeOutput(zero_f, lengths * 0, zero_f, np.False_)
    elapsed = _HOST_FLOAT(round(float(now - start), 6))  # Gymnasium's own rounding
    out = EpisodeOutput(returns, lengths, elapsed, np.True_)
    size = state.recent_returns.shape[0]
    recent = state[4:8]
    if size:
        recent = (
            _push_one(state.recent_returns, returns),
            _push_one(state.recent_lengths, lengths),
            _push_one(state.recent_times, elapsed) if timed else state.recent_times,
            state.recent_size + (state.recent_size < size),
        )
    if same_step:  # the episode restarts within this step
        returns, lengths = returns * 0, lengths * 0
        start = _HOST_FLOAT(now) if timed else start
    new = Episodes(
        returns,
        lengths,
        start,
        np.True_,
        *recent,
        state.episode_count + 1,
        state.episode_count_lo,
    )
    return new, out


def _step_batch_on_host(
    state: Episodes,
    reward: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    now: Any,
    same_step: bool,
    timed: bool,
) -> tuple[Episodes, EpisodeOutput]:
    """:func:`step_episodes` with its report, for a batch of host values.

    The same formulas with NumPy's own functions (no dispatch), and the envs
    whose episodes ended listed by index, as host values may be: a vector
    env's episode end costs what Gymnasium's does. (The suite holds this to
    Gymnasium's numbers, and the generic path to the same, step by step.)
    """
    if reward.dtype != state.returns.dtype:
        reward = reward.astype(state.returns.dtype)
    # New arrays, which this step may write into; the state's own are left alone.
    returns, lengths, start = state.returns + reward, state.lengths + 1, state.start_time
    done = np.logical_or(terminated, truncated)
    # `now` as it comes (a Python float meets the state's float dtype as
    # np.asarray(now, dtype) would, without the call).
    if not same_step:  # the reset step of NEXT_STEP autoreset
        fresh = state.prev_done.nonzero()[0]
        if fresh.shape[0]:
            returns[fresh] = 0.0
            lengths[fresh] = 0
            start = start.copy()
            start[fresh] = now
    elapsed = ((now - start) * 1e6).round() / 1e6
    out = EpisodeOutput(
        np.where(done, returns, 0.0), np.where(done, lengths, 0), np.where(done, elapsed, 0.0), done
    )
    ended = done.nonzero()[0]
    k = ended.shape[0]
    if state.episode_count.dtype == np.float64:  # exact to 2^53 added plainly (add_count)
        hi, lo = np.float64(float(state.episode_count) + k), state.episode_count_lo
    else:
        hi, lo, _ = add_count(state.episode_count, state.episode_count_lo, k)
    recent_returns, recent_lengths, recent_times, recent_size = state[4:8]
    size = state.recent_returns.shape[0]
    if size and k:
        newest = ended[::-1]  # the highest index is the newest, as in Gymnasium
        if k > size:
            newest = newest[:size]
        kept = size - newest.shape[0]
        # Newest first: the ended envs' values, then the buffer's, as push_front.
        recent_returns = np.concatenate(
            (returns[newest], recent_returns[:kept]), dtype=recent_returns.dtype
        )
        recent_lengths = np.concatenate(
            (lengths[newest], recent_lengths[:kept]), dtype=recent_lengths.dtype
        )
        if timed:
            recent_times = np.concatenate(
                (elapsed[newest], recent_times[:kept]), dtype=recent_times.dtype
            )
        recent_size = recent_size.dtype.type(min(int(recent_size) + k, size))
    if same_step and k:  # the envs that ended restart within this step
        returns = np.where(done, 0.0, returns)
        lengths = np.where(done, 0, lengths)
        start = np.where(done, now, start) if timed else start
    new = Episodes(
        returns,
        lengths,
        start,
        done,
        recent_returns,
        recent_lengths,
        recent_times,
        recent_size,
        hi,
        lo,
    )
    return new, out


class HostRun:
    """One env's episode, stepped with Python numbers while everything is on the host.

    A single env on NumPy pays for every array operation in Python's own
    time: this keeps the running return, length and start as Python numbers
    and lists the episodes that end, so that a step costs what Gymnasium's
    costs. :meth:`caught_up` writes all of it into an :class:`Episodes`
    state, the same state that :func:`step_episodes` (``same_step=True``)
    would have reached over the same steps; the owner calls it whenever the
    state is read.

    Example:
        >>> import numpy as np
        >>> state = init_episodes((), xp=np, buffer_length=3)
        >>> run = HostRun(state)
        >>> run.step(1.0, False, 0.5), run.step(2.0, True, 1.25)
        (None, (3.0, 2, 1.25))
        >>> state = run.caught_up(state)
        >>> state.recent_returns, int(state.recent_size)
        (array([3., 0., 0.]), 1)
    """

    __slots__ = ("done", "ended", "lengths", "returns", "start")

    def __init__(self, state: Episodes) -> None:
        if not (_one_on_host(state.returns) and is_host(state.recent_returns)):
            raise TypeError(
                "anywrap.transforms.episodes.HostRun: expected one env's state of NumPy "
                f"values, got returns {describe(state.returns)}"
            )
        self.returns = float(state.returns)
        self.lengths = int(state.lengths)
        self.start = float(state.start_time)
        self.done = bool(state.prev_done)
        self.ended: list[tuple[float, int, float]] = []
        """``(return, length, seconds)`` of each episode ended since the last catch-up."""

    def step(self, reward: Any, done: bool, now: float) -> tuple[float, int, float] | None:
        """Add one step; the episode's ``(return, length, seconds)`` if it ended, which
        then restarts at ``now`` (Gymnasium's rounding of the seconds to 1 us)."""
        returns = self.returns + float(reward)
        lengths = self.lengths + 1
        self.done = done
        if not done:
            self.returns, self.lengths = returns, lengths
            return None
        ended = (returns, lengths, round(now - self.start, 6))
        self.ended.append(ended)
        self.returns, self.lengths, self.start = 0.0, 0, now
        return ended

    def restart(self, now: float) -> None:
        """A reset: the episode starts again at ``now``."""
        self.returns, self.lengths, self.start, self.done = 0.0, 0, now, False

    def caught_up(self, state: Episodes) -> Episodes:
        """``state`` with this run's values and ended episodes written in."""
        ended, self.ended = self.ended, []
        k = len(ended)
        recent = state[4:8]
        size = state.recent_returns.shape[0]
        if k and size:
            newest = ended[: -size - 1 : -1]  # newest first
            kept = size - len(newest)
            columns = zip(*newest)
            recent = (
                *(
                    np.concatenate((np.asarray(c, dtype=b.dtype), b[:kept]))
                    for c, b in zip(columns, recent[:3])
                ),
                state.recent_size.dtype.type(min(int(state.recent_size) + k, size)),
            )
        hi, lo = state.episode_count, state.episode_count_lo
        if k:
            if hi.dtype == np.float64:  # exact to 2^53 added plainly (add_count)
                hi = np.float64(float(hi) + k)
            else:
                hi, lo, _ = add_count(hi, lo, k)
        return Episodes(
            state.returns.dtype.type(self.returns),
            state.lengths.dtype.type(self.lengths),
            state.start_time.dtype.type(self.start),
            np.bool_(self.done),
            *recent,
            hi,
            lo,
        )


def _push_one(buffer: np.ndarray, value: Any) -> np.ndarray:
    """:func:`anywrap.xp.push_front` of one value, in place: a single env's buffers
    on the host belong to its wrapper, which copies them when it hands them out
    (``state_dict``) and when it takes them in (``load_state_dict``)."""
    buffer[1:] = buffer[:-1]
    buffer[0] = value
    return buffer


def _record(
    state: Episodes,
    returns: Array,
    lengths: Array,
    elapsed: Array | None,
    done: Array,
    reduce: Reduce | None = None,
    gather: Gather | None = None,
) -> Episodes:
    """Push the episodes that ended this step into the recent buffers and count them.

    Without ``elapsed`` the recent times are left as they are. With ``reduce``
    the count, and with ``gather`` the buffers, are those of the whole
    distributed batch.
    """
    xp = namespace(returns)
    size = state.recent_returns.shape[0]
    if size and (reduce is None) != (gather is None):
        raise ValueError(
            "step_episodes: a recent-episode buffer over a split batch needs both `reduce` "
            "(for the count) and `gather` (for the buffer)"
        )
    flat_done = flat(done)
    k_here = count_true(flat_done)  # a Python int on the host
    k = k_here if reduce is None else reduce(k_here)
    k_size, k_count = (
        (k, k)
        if isinstance(k, int)
        else (astype(k, state.recent_size.dtype), astype(k, state.episode_count.dtype))
    )
    hi, lo, _ = add_count(state.episode_count, state.episode_count_lo, k_count)
    if size == 0:  # no buffer: only count
        return state._replace(episode_count=hi, episode_count_lo=lo)
    # Gymnasium appends finished episodes in ascending env order: the highest
    # index is the newest.
    values = (returns, lengths) + (() if elapsed is None else (elapsed,))
    order = last_true_indices(flat_done, size)
    fresh = [take(flat(v), order) for v in values]
    if gather is not None:
        # Each participant offers its `size` newest episodes oldest first, so
        # that their concatenation runs in the global env order; the last
        # `size` offered entries are then the newest of the whole batch. This
        # gathers `size` values per participant, whatever the batch size. A
        # finished episode lasted at least one step: a zero length marks an
        # empty slot, which saves gathering a mask.
        j = xp.arange(size, device=device(order))
        fresh = [xp.flip(f, axis=0) for f in fresh]
        fresh[1] = where(xp.flip(j < k_here, axis=0), fresh[1], 0)
        fresh = [gather(f) for f in fresh]
        newest = last_true_indices(fresh[1] > 0, size)
        fresh = [xp.take(f, newest) for f in fresh]
    return state._replace(
        recent_returns=push_front(state.recent_returns, fresh[0], k),
        recent_lengths=push_front(state.recent_lengths, fresh[1], k),
        recent_times=(
            state.recent_times if elapsed is None else push_front(state.recent_times, fresh[2], k)
        ),
        recent_size=xp.minimum(state.recent_size + k_size, size),
        episode_count=hi,
        episode_count_lo=lo,
    )


def shift_clock(state: Episodes, seconds: float) -> Episodes:
    """Move every episode's start time by ``seconds`` (re-basing the clock).

    Checkpoints store start times relative to the moment of saving, so that an
    episode that spans a save and a load keeps its true duration.
    """
    xp = namespace(state.start_time)
    return state._replace(
        start_time=state.start_time + xp.asarray(seconds, dtype=state.start_time.dtype)
    )
