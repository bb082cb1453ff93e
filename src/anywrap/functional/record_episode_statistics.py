"""RecordEpisodeStatistics for functional envs: episode returns and lengths, on the device."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import check_stats_key, whole_number, wrapper_name
from anywrap.transforms import record_episode_statistics as episodes
from anywrap.transforms.record_episode_statistics import Gather

from .core import (
    AxisName,
    FunctionalEnv,
    Step,
    Wrapper,
    batch_shape,
    find_state,
    once,
    psum,
    same_step,
)

__all__ = [
    "EpisodeStatisticsState",
    "RecordEpisodeStatistics",
    "episode_count",
    "last_episodes",
    "recent_episodes",
]


def all_gather(axis_name: AxisName) -> Gather:
    """Concatenate a 1-D array over ``axis_name`` in the axis' order (a ``psum`` of each
    shard's rows at its offset in zeros)."""

    def gather(x: jax.Array) -> jax.Array:
        n = x.shape[0]
        size = jax.lax.psum(1, axis_name)  # the axis size, a static int
        mine = jax.lax.axis_index(axis_name) * n
        as_bool = x.dtype == jnp.bool_
        rows = x.astype(jnp.int32) if as_bool else x
        full = jax.lax.dynamic_update_slice(jnp.zeros((size * n,), rows.dtype), rows, (mine,))
        full = jax.lax.psum(full, axis_name)
        return full > 0 if as_bool else full

    return gather


class EpisodeStatisticsState(NamedTuple):
    """State of :class:`RecordEpisodeStatistics`."""

    inner: Any
    episodes: episodes.Episodes
    last: episodes.LastEpisodes


def last_episodes(state: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(returns, lengths, valid)``: each environment's most recent finished episode
    (meaningless where ``valid`` is False: the env has not finished one yet)."""
    last = find_state(state, EpisodeStatisticsState).last
    return last.returns, last.lengths, last.valid


def recent_episodes(state: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(returns, lengths, valid)`` of the last ``buffer_length`` finished episodes of
    the whole batch, newest first (Gymnasium's ``return_queue`` reversed)."""
    e = find_state(state, EpisodeStatisticsState).episodes
    if e.recent_returns.shape[-1] == 0:
        raise ValueError(
            "recent_episodes: this RecordEpisodeStatistics keeps no buffer (buffer_length=0); "
            "create it with buffer_length=n, or read each env's last episode with last_episodes"
        )
    valid = jnp.arange(e.recent_returns.shape[-1]) < e.recent_size[..., None]
    return e.recent_returns, e.recent_lengths, valid


def episode_count(state: Any) -> jax.Array:
    """Episodes finished so far by the whole batch (with ``axis_name``, every shard's): a
    0-d float, exact below 2^24 in float32 (past that, add the state's ``episode_count``
    and ``episode_count_lo`` on the host)."""
    return episodes.episode_total(find_state(state, EpisodeStatisticsState).episodes)


class RecordEpisodeStatistics(Wrapper):
    """Track each environment's episode return and length; report them when episodes end.

    Each step adds ``info[stats_key] = {"r": return, "l": length}`` and the mask
    ``info["_" + stats_key]`` (True where an episode ended), as Gymnasium does;
    where the mask is False, ``r`` is NaN and ``l`` 0. There is no ``"t"``: a
    compiled program has no wall clock. The state keeps each env's last episode
    (:func:`last_episodes`), the episode count (:func:`episode_count`) and the
    batch's last ``buffer_length`` episodes (:func:`recent_episodes`).

    Args:
        env: A functional env (batched or not).
        buffer_length: How many recent episodes the buffer keeps (default 0: none;
            it costs a top-k every step).
        stats_key: The info key of the statistics (and ``"_" + stats_key`` of the mask).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis the batch is split
            over: every shard then holds the global episode count and buffer.

    Example:
        Two Pendulums with episodes of 5 steps:

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> pendulum, params = gymnax.make("Pendulum-v1")
        >>> env = F.from_gymnax(pendulum, params.replace(max_steps_in_episode=5), num_envs=2)
        >>> env = F.RecordEpisodeStatistics(env, buffer_length=100)
        >>> _, state = env.reset(jax.random.key(0))
        >>> total = 0
        >>> for t in range(5):
        ...     s = env.step(state, jnp.ones((2, 1)))
        ...     state, total = s.state, total + s.reward
        >>> s.info["_episode"].tolist(), s.info["episode"]["l"].tolist()
        ([True, True], [5, 5])
        >>> bool(jnp.allclose(s.info["episode"]["r"], total)), float(F.episode_count(state))
        (True, 2.0)
        >>> returns, lengths, valid = F.recent_episodes(state)  # newest first: env 1, env 0
        >>> bool((returns[:2] == total[::-1]).all()), valid[:3].tolist()
        (True, [True, True, False])
    """

    state_type = EpisodeStatisticsState
    global_fields = (
        "episodes.recent_returns",
        "episodes.recent_lengths",
        "episodes.recent_times",
        "episodes.recent_size",
        "episodes.episode_count",
        "episodes.episode_count_lo",
    )
    per_env_fields = (
        "episodes.returns",
        "episodes.lengths",
        "episodes.start_time",
        "episodes.prev_done",
        "last",
    )

    def __init__(
        self,
        env: FunctionalEnv,
        buffer_length: int = 0,
        stats_key: str = "episode",
        *,
        axis_name: AxisName | None = None,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        buffer_length = whole_number(name, "buffer_length", buffer_length, 0)
        stats_key = check_stats_key(name, stats_key)
        self.buffer_length: int = int(buffer_length)
        self.stats_key: str = stats_key
        self.axis_name: AxisName | None = axis_name

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        e = episodes.init_episodes(
            batch_shape(self.env, obs), xp=jnp, buffer_length=self.buffer_length
        )
        return obs, EpisodeStatisticsState(inner, e, episodes.init_last_episodes(e))

    def step(self, state: EpisodeStatisticsState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        key = self.stats_key
        if key in info or f"_{key}" in info:
            raise ValueError(
                f"{wrapper_name(self)}: the env's info already has the key {key!r} or "
                f"{'_' + key!r} (keys: {sorted(info)}); pass another stats_key"
            )
        reward, terminated, truncated = once((reward, terminated, truncated))
        split = self.axis_name is not None
        e, out = episodes.step_episodes(
            state.episodes,
            reward,
            terminated,
            truncated,
            now=0.0,
            same_step=same_step(self.env),
            timed=False,
            reduce=psum(self.axis_name),
            gather=all_gather(self.axis_name) if split and self.buffer_length else None,
        )
        assert out is not None
        info = {
            **info,
            key: {"r": jnp.where(out.done, out.returns, jnp.nan), "l": out.lengths},
            f"_{key}": out.done,
        }
        last = episodes.update_last_episodes(state.last, out)
        return Step(
            obs, EpisodeStatisticsState(inner, e, last), reward, terminated, truncated, info
        )
