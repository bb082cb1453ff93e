"""The functional wrappers that keep statistics of the whole batch."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from anywrap.shell.checks import (
    check_epsilon,
    check_gamma,
    check_stats_dtype,
    check_stats_key,
    flag,
    whole_number,
    wrapper_name,
)
from anywrap.shell.spaces import leaf_boxes, map_space, unbounded_float32
from anywrap.shell.statistics import switch_property
from anywrap.transforms import normalize_observation as normalize
from anywrap.transforms import record_episode_statistics as episodes
from anywrap.transforms.moments import default_stats_dtype
from anywrap.transforms.normalize_reward import Returns, init_returns, normalize_reward
from anywrap.tree import tree_map
from anywrap.xp import resolve_dtype, wide_float

from .core import (
    AxisName,
    FunctionalEnv,
    Step,
    Wrapper,
    as_rows,
    batch_ndim,
    batch_shape,
    checked_values,
    find_state,
    from_rows,
    once,
    psum,
    same_step,
)

__all__ = [
    "EpisodeStatisticsState",
    "NormalizeObservation",
    "NormalizeObservationState",
    "NormalizeReward",
    "NormalizeRewardState",
    "RecordEpisodeStatistics",
    "episode_count",
    "last_episodes",
    "recent_episodes",
]


class NormalizeObservationState(NamedTuple):
    inner: Any
    obs_stats: Any


class NormalizeObservation(Wrapper):
    """Normalise observations as :class:`anywrap.NormalizeObservation` does (float32), with
    running moments of the whole batch that learn from every row at every reset and step
    (``info["final_obs"]`` is normalised with them too).

    Args:
        update_running_mean: Whether the statistics learn (read when JAX traces the step).
        learn_final_obs: SAME_STEP only: learn from ``info["final_obs"]`` too.
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: ``"float32"`` or ``"float64"`` (default Gymnasium's; float32 without x64).
        initial_stats: The moments ``reset`` starts from, or a function of the fresh ones.
        stats_gradient: Whether gradients flow through the statistics update too.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
        >>> obs, state = F.NormalizeObservation(bare).reset(jax.random.key(0))
        >>> abs(obs.mean(0)).round(3).tolist(), obs.std(0).round(3).tolist()
        ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    """

    state_type = NormalizeObservationState
    global_fields = ("obs_stats",)

    update_running_mean = switch_property()

    def __init__(
        self,
        env: FunctionalEnv,
        epsilon: float = 1e-8,
        *,
        update_running_mean: bool = True,
        learn_final_obs: bool = False,
        axis_name: AxisName | None = None,
        stats_dtype: Any = None,
        initial_stats: Any = None,
        stats_gradient: bool = False,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.initial_stats = initial_stats
        self.epsilon = check_epsilon(name, epsilon)
        self.update_running_mean = update_running_mean
        self.learn_final_obs = flag(name, "learn_final_obs", learn_final_obs)
        self.axis_name: AxisName | None = axis_name
        self.stats_dtype = check_stats_dtype(name, stats_dtype)
        self.stats_gradient = flag(name, "stats_gradient", stats_gradient)
        leaf_boxes(name, env.observation_space)
        self._obs_space = map_space(unbounded_float32, env.observation_space)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        b = batch_ndim(self.env)
        shapes = tree_map(lambda x: tuple(x.shape[b:]), obs)
        dtypes = tree_map(
            lambda x: resolve_dtype(jnp, self.stats_dtype or default_stats_dtype(x.dtype)), obs
        )
        stats = normalize.init_observation_stats(shapes, xp=jnp, dtype=dtypes)
        if (given := self.initial_stats) is not None:  # checked against the fresh statistics
            given = given(stats) if callable(given) else given
            want, got = jax.tree.map(jnp.shape, stats), jax.tree.map(jnp.shape, given)
            if jax.tree.structure(given) != jax.tree.structure(stats) or got != want:  # type: ignore[operator]
                raise ValueError(
                    f"{wrapper_name(self)}: expected initial_stats shaped like this env's "
                    f"statistics, {want}; got {got}"
                )
            for path, x in jax.tree_util.tree_leaves_with_path(given):
                if isinstance(x, jax.core.Tracer):  # a trace's values are not read: no host sync
                    continue
                value, where = np.asarray(x), jax.tree_util.keystr(path)
                moment = where.rpartition(".")[2] in ("var", "count")  # non-negative too
                bad = not np.isfinite(value).all() if value.dtype.kind in "fc" else False
                if bad or (moment and not (value >= 0).all()):
                    raise ValueError(
                        f"{wrapper_name(self)}: expected initial_stats{where} "
                        f"{'non-negative and finite' if moment else 'finite'}, "
                        f"got {value.ravel()[:4].tolist()}"
                    )
            stats = jax.tree.map(lambda a, b: jnp.asarray(a, dtype=b.dtype), given, stats)
        stats, out = normalize.normalize_observation(
            stats, as_rows(self.env, obs), **self._options()
        )
        return from_rows(self.env, out), NormalizeObservationState(inner, stats)

    def _options(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "update": self.update_running_mean,
            "reduce": psum(self.axis_name),
            "stats_gradient": self.stats_gradient,
        }

    def step(self, state: NormalizeObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        if not same_step(self.env) or "final_obs" not in info:
            stats, out = normalize.normalize_observation(
                state.obs_stats, as_rows(self.env, once(obs)), **self._options()
            )
        else:
            done = jnp.reshape(jnp.logical_or(terminated, truncated), (-1,))
            final, learn = info["final_obs"], self.learn_final_obs
            if learn:
                obs, final, done = once((obs, final, done))
            else:  # no reduction reads final_obs: XLA computes it only if it is used
                obs = once(obs)
            obs, final = as_rows(self.env, (obs, final))
            stats, (out, final) = normalize.normalize_observation_with_final(
                state.obs_stats, obs, final, done, learn_final=learn, **self._options()
            )
            info = {**info, "final_obs": from_rows(self.env, final)}
        state = NormalizeObservationState(inner, stats)
        return Step(from_rows(self.env, out), state, reward, terminated, truncated, info)


class NormalizeRewardState(NamedTuple):
    inner: Any
    returns: Returns


class NormalizeReward(Wrapper):
    """Scale rewards by the running standard deviation of the discounted return ``G`` as
    :class:`anywrap.NormalizeReward` does (only ``terminated`` resets ``G``), with
    ``Var[G]`` over the batch; after a SAME_STEP autoreset, ``G`` restarts at 0.

    Args:
        update_running_mean: Whether the statistics learn (read when JAX traces the step).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: ``"float32"`` or ``"float64"`` (default Gymnasium's: a float32 ``G``
            for a batch, else float64; float32 without x64).
        stats_gradient: Whether gradients flow through the statistics update too.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.NormalizeReward(bare, gamma=0.99)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = env.step(state, jnp.zeros((2, 1)))
        >>> raw = bare.step(state.inner, jnp.zeros((2, 1))).reward
        >>> std = jnp.sqrt(step.state.returns.rms.var + 1e-8)  # of G = r on this first step
        >>> bool(jnp.allclose(step.reward, raw / std))
        True
    """

    state_type = NormalizeRewardState
    global_fields = ("returns.rms",)
    per_env_fields = ("returns.accumulated", "returns.prev_done")

    update_running_mean = switch_property()

    def __init__(
        self,
        env: FunctionalEnv,
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        update_running_mean: bool = True,
        axis_name: AxisName | None = None,
        stats_dtype: Any = None,
        stats_gradient: bool = False,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.gamma = check_gamma(name, gamma)
        self.epsilon = check_epsilon(name, epsilon)
        self.update_running_mean = update_running_mean
        self.axis_name: AxisName | None = axis_name
        self.stats_dtype = check_stats_dtype(name, stats_dtype)
        self.stats_gradient = flag(name, "stats_gradient", stats_gradient)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        if self.stats_dtype is None:  # Gymnasium's: the vector accumulator is float32
            stats = wide_float(jnp)
            acc = jnp.float32 if batch_ndim(self.env) else stats
        else:
            acc = stats = resolve_dtype(jnp, self.stats_dtype)
        batch = batch_shape(self.env, obs) or (1,)  # unbatched: a batch of one, for ``reduce``
        r = init_returns(batch, xp=jnp, acc_dtype=acc, stats_dtype=stats)
        return obs, NormalizeRewardState(inner, r)

    def step(self, state: NormalizeRewardState, action: Any) -> Step:
        step = checked_values(self, self.env.step(state.inner, action))
        obs, inner, reward, terminated, truncated, info = step
        reward, terminated, truncated = once((reward, terminated, truncated))
        reset_now = same_step(self.env)
        r, scaled = normalize_reward(
            state.returns,
            *as_rows(self.env, (reward, terminated, truncated)),
            gamma=self.gamma,
            epsilon=self.epsilon,
            update=self.update_running_mean,
            skip_after_done=not reset_now,
            zero_after_done=reset_now,
            reduce=psum(self.axis_name),
            stats_gradient=self.stats_gradient,
        )
        scaled = from_rows(self.env, scaled)
        return Step(obs, NormalizeRewardState(inner, r), scaled, terminated, truncated, info)


def all_gather(axis_name: AxisName) -> episodes.Gather:
    """Concatenate a 1-D array over ``axis_name`` in the axis' order (a ``psum``)."""

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
    inner: Any
    episodes: episodes.Episodes
    last: episodes.LastEpisodes


def last_episodes(state: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(returns, lengths, valid)``: each env's most recent finished episode (where
    ``valid`` is False, none has finished yet)."""
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
    ``info["_" + stats_key]``, as Gymnasium does; where the mask is False, ``r`` is NaN
    and ``l`` 0. No ``"t"``: a compiled program has no wall clock. The state keeps each
    env's last episode (:func:`last_episodes`), the episode count (:func:`episode_count`)
    and the batch's last ``buffer_length`` episodes (:func:`recent_episodes`).

    Args:
        buffer_length: How many recent episodes to keep (default 0; a top-k each step).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis the batch is split over:
            every shard then holds the global episode count and buffer.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> pendulum, params = gymnax.make("Pendulum-v1")
        >>> env = F.from_gymnax(pendulum, params.replace(max_steps_in_episode=5), num_envs=2)
        >>> env = F.RecordEpisodeStatistics(env)
        >>> _, state = env.reset(jax.random.key(0))
        >>> for t in range(5):
        ...     s = env.step(state, jnp.ones((2, 1)))
        ...     state = s.state
        >>> s.info["_episode"].tolist(), s.info["episode"]["l"].tolist()
        ([True, True], [5, 5])
        >>> float(F.episode_count(state))
        2.0
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
        self.buffer_length: int = int(whole_number(name, "buffer_length", buffer_length, 0))
        self.stats_key: str = check_stats_key(name, stats_key)
        self.axis_name: AxisName | None = axis_name

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        e = episodes.init_episodes(
            batch_shape(self.env, obs), xp=jnp, buffer_length=self.buffer_length
        )
        return obs, EpisodeStatisticsState(inner, e, episodes.init_last_episodes(e))

    def step(self, state: EpisodeStatisticsState, action: Any) -> Step:
        step = checked_values(self, self.env.step(state.inner, action))
        obs, inner, reward, terminated, truncated, info = step
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
            same_step=same_step(self.env),
            timed=False,
            reduce=psum(self.axis_name),
            gather=all_gather(self.axis_name) if split and self.buffer_length else None,
        )
        assert out is not None
        stats = {"r": jnp.where(out.done, out.returns, jnp.nan), "l": out.lengths}
        info = {**info, key: stats, f"_{key}": out.done}
        state = EpisodeStatisticsState(inner, e, episodes.update_last_episodes(state.last, out))
        return Step(obs, state, reward, terminated, truncated, info)
