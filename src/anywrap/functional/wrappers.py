"""The six functional wrappers: pure, jittable, statistics shared across the batch.

Each is a thin shell over :mod:`anywrap.transforms`; none holds arithmetic of
its own. The stateful ones (RecordEpisodeStatistics, NormalizeObservation,
NormalizeReward) wrap the inner state as ``XState(inner=..., ...)``; the
stateless ones pass the state through untouched.

Batch and devices: a wrapper over a batched env (``num_envs=N``) updates ONE set
of statistics from all N rows each step, like ``anywrap.vector``'s shells.
When the batch is split over devices, pass ``axis_name`` to the three stateful
wrappers: inside ``shard_map`` / ``pmap`` (or a ``vmap`` with that axis name)
the statistics are then summed over that axis with ``jax.lax.psum``, so every
shard holds the global statistics (moments, episode count, recent episodes),
typed as replicated, so that ``shard_map`` accepts ``P()`` out_specs for them.
Under plain ``jax.jit`` of a sharded array nothing is needed: the program
already sees the global batch.

Arguments, defaults and checks are those of the stateful shells; the README's
table of the three shells lists where they differ, and why.

Example:
    >>> import jax, gymnax
    >>> from anywrap import functional as F
    >>> env = F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), num_envs=4)
    >>> env = F.NormalizeReward(F.NormalizeObservation(F.ClipAction(env)))
    >>> obs, state = env.reset(jax.random.key(0))
    >>> F.find_state(state, F.NormalizeObservationState).obs_stats.count.shape
    ()
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap.distributed import jax_psum
from anywrap.shell.checks import callable_argument, check_epsilon, check_gamma, flag, wrapper_name
from anywrap.shell.spaces import leaf_boxes, map_space
from anywrap.shell.stats import RunningMeanSwitch
from anywrap.transforms import actions, episodes, observations, returns
from anywrap.transforms.episodes import Gather
from anywrap.transforms.moments import Reduce, default_stats_dtype
from anywrap.tree import first_leaf, tree_map
from anywrap.xp import resolve_dtype, wide_float

from .core import FunctionalEnv, Step, Wrapper, batch_ndim

__all__ = [
    "ClipAction",
    "EpisodeStatisticsState",
    "NormalizeObservation",
    "NormalizeObservationState",
    "NormalizeReward",
    "NormalizeRewardState",
    "RecordEpisodeStatistics",
    "TransformObservation",
    "TransformReward",
    "episode_count",
    "last_episodes",
    "recent_episodes",
]

AxisName = Any
"""A mapped axis name (``shard_map`` / ``pmap`` / ``vmap``), or a tuple of them."""


def _psum(axis_name: AxisName | None) -> Reduce | None:
    return None if axis_name is None else jax_psum(axis_name)


def _all_gather(axis_name: AxisName) -> Gather:
    """Concatenate a 1-D array over ``axis_name`` in the axis' order (the global batch order).

    Built from ``psum`` (each shard places its rows at its offset in zeros,
    and the sum puts them together), so the result is typed as the same on
    every shard under ``shard_map``'s replication check, and the one code
    runs under ``shard_map``, ``pmap`` and ``vmap``. Adding zeros is exact.
    """

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


def _stats_dtype_name(owner: str, stats_dtype: Any) -> str | None:
    """``stats_dtype`` checked: None (Gymnasium's default), or float32 / float64."""
    if stats_dtype is None:
        return None
    try:
        name = np.dtype(stats_dtype).name
    except TypeError:
        name = None
    if name not in ("float32", "float64"):
        raise ValueError(
            f"{owner}: expected `stats_dtype` to be None, 'float32' or 'float64', "
            f"got {stats_dtype!r}"
        )
    return name


class _RunningMeanSwitch(RunningMeanSwitch):
    """``update_running_mean``: a constructor argument and a settable attribute,
    as in the stateful shells, but read when JAX traces the step.

    JAX reuses a trace of the same function (``jax.jit(env.step)`` again
    included): a change takes effect in functions traced after it, such as a
    new ``jax.jit(lambda s, a: env.step(s, a))``. The functional idiom is two
    stacks over the one state: a training stack and an evaluation stack built
    with ``update_running_mean=False``.
    """


def _once(x: Any) -> Any:
    """``x``, computed once into memory.

    A wrapper reads the env's outputs in several reductions; without the
    barrier XLA fuses the env's math (``cos``, ``sin``, the autoreset select)
    into each of them and computes it again per reduction (about 1.5x slower
    stats on CPU).
    """
    return jax.lax.optimization_barrier(x)


def _batch_shape(env: FunctionalEnv, obs: Any) -> tuple[int, ...]:
    """The batch shape of this (possibly shard-local) observation."""
    return tuple(first_leaf(obs).shape[: batch_ndim(env)])


# ------------------------------------------------------------------ stateless
class ClipAction(Wrapper):
    """Clip a continuous action to the action space's bounds before the env sees it.

    The action space becomes ``Box(-inf, inf)``, as in Gymnasium.

    Example:
        gymnax's MountainCar charges ``0.1 * a**2`` for the action it is given,
        so its reward shows the action that reached it:

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=3)
        >>> env = F.ClipAction(car)
        >>> env.action_space, car.action_space
        (Box(-inf, inf, (1,), float32), Box(-1.0, 1.0, (1,), float32))
        >>> _, state = env.reset(jax.random.key(0))
        >>> action = jnp.array([[5.0], [-0.25], [-3.0]])
        >>> np.asarray(env.step(state, action).reward).round(5)  # clipped to 1, -0.25, -1
        array([-0.1    , -0.00625, -0.1    ], dtype=float32)
        >>> np.asarray(car.step(state, action).reward).round(5)  # unclipped
        array([-2.5    , -0.00625, -0.9    ], dtype=float32)
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        space = env.action_space
        if not isinstance(space, gym.spaces.Box):
            raise TypeError(f"{wrapper_name(self)}: expected a Box action space, got {space}")
        self._low, self._high = np.asarray(space.low), np.asarray(space.high)
        self._space = gym.spaces.Box(-np.inf, np.inf, space.shape, space.dtype)

    action_space = property(lambda self: self._space)  # type: ignore[assignment]

    def step(self, state: Any, action: Any) -> Step:
        a = jnp.asarray(action)
        low = jnp.asarray(self._low, dtype=a.dtype)
        high = jnp.asarray(self._high, dtype=a.dtype)
        return self.env.step(state, actions.clip_action(a, low, high))


class TransformObservation(Wrapper):
    """Apply a pure function ``func`` to every observation (and ``info["final_obs"]``).

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformObservation(bare, lambda o: jnp.clip(o, -0.5, 0.5))
        >>> np.asarray(bare.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.88 ,  0.475, -0.559],
               [-0.842, -0.54 , -0.276]], dtype=float32)
        >>> np.asarray(env.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.5  ,  0.475, -0.5  ],
               [-0.5  , -0.5  , -0.276]], dtype=float32)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None = None,
    ) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)
        self._space = observation_space

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self.env.observation_space if self._space is None else self._space

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, state = self.env.reset(key)
        return self.func(obs), state

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        info = s.info
        if "final_obs" in info:
            info = {**info, "final_obs": self.func(info["final_obs"])}
        return s._replace(obs=self.func(s.obs), info=info)


class TransformReward(Wrapper):
    """Apply a pure function ``func`` to every reward.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformReward(bare, lambda r: jnp.clip(r, -1.0, 0.0))
        >>> _, state = bare.reset(jax.random.key(0))
        >>> action = jnp.zeros((2, 1))
        >>> np.asarray(bare.step(state, action).reward).round(3)
        array([-0.277, -6.617], dtype=float32)
        >>> np.asarray(env.step(state, action).reward).round(3)
        array([-0.277, -1.   ], dtype=float32)
    """

    def __init__(self, env: FunctionalEnv, func: Callable[[jax.Array], jax.Array]) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        return s._replace(reward=self.func(s.reward))


# ------------------------------------------------------------------- stateful
class EpisodeStatisticsState(NamedTuple):
    """State of :class:`RecordEpisodeStatistics`."""

    inner: Any
    episodes: episodes.Episodes
    last: episodes.LastEpisodes


def last_episodes(state: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(returns, lengths, valid)``: each environment's most recent finished episode.

    Shaped like the batch. Where ``valid`` is False the env has not finished
    an episode yet and its values mean nothing: average with the mask, e.g.
    ``jnp.sum(jnp.where(valid, returns, 0)) / jnp.sum(valid)``.
    """
    from .core import find_state

    last = find_state(state, EpisodeStatisticsState).last
    return last.returns, last.lengths, last.valid


def recent_episodes(state: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(returns, lengths, valid)`` of the last ``buffer_length`` finished episodes
    of the whole batch, newest first, like Gymnasium's ``return_queue`` and
    ``length_queue`` reversed.

    Only the entries where ``valid`` is True are episodes; the others are
    unfilled buffer slots (their values mean nothing).
    """
    from .core import find_state

    e = find_state(state, EpisodeStatisticsState).episodes
    if e.recent_returns.shape[-1] == 0:
        raise ValueError(
            "recent_episodes: this RecordEpisodeStatistics keeps no buffer (buffer_length=0); "
            "create it with buffer_length=n, or read each env's last episode with last_episodes"
        )
    valid = jnp.arange(e.recent_returns.shape[-1]) < e.recent_size[..., None]
    return e.recent_returns, e.recent_lengths, valid


def episode_count(state: Any) -> jax.Array:
    """Episodes finished so far, by the whole batch (with ``axis_name``, of every shard).

    A 0-d float: the two words of the double-word count summed, exact below
    2^24 episodes in float32 (JAX without x64). The words themselves
    (``episodes.episode_count`` and ``episodes.episode_count_lo`` of
    :class:`EpisodeStatisticsState`) stay exact far beyond: past 2^24, add
    them on the host, ``int(hi) + int(lo)``.
    """
    from .core import find_state

    return episodes.episode_total(find_state(state, EpisodeStatisticsState).episodes)


class RecordEpisodeStatistics(Wrapper):
    """Track each environment's episode return and length; report them when episodes end.

    Each step adds ``info[stats_key] = {"r": return, "l": length}`` and the
    mask ``info["_" + stats_key]`` (True where an episode ended on this step),
    with ``stats_key="episode"`` by default, as in Gymnasium. Where the mask
    is False, ``r`` is NaN and ``l`` is 0, so nothing that is not an
    episode's return ever looks like one (in particular before the first
    episode ends). There is no ``"t"``: a compiled program has no wall clock.
    The README's table of the three shells lists these differences.

    The state keeps, on the device:

    * each environment's most recent finished episode with a validity mask
      (:func:`last_episodes`), one elementwise pass per step;
    * the last ``buffer_length`` finished episodes of the whole batch, newest
      first, like Gymnasium's ``return_queue`` and ``length_queue``
      (:func:`recent_episodes`), with ``buffer_length=n``. Finding them is a
      top-k over the batch every step, about 3% of the six-wrapper CleanRL
      step (4096 Pendulums, benchmark B4), so the functional default is 0: no
      buffer (the stateful shells keep Gymnasium's 100);
    * the number of episodes finished (:func:`episode_count`), a double-word
      count that stays exact far past 2^24 episodes even in float32.

    Args:
        env: A functional env (batched or not).
        buffer_length: How many recent episodes the buffer keeps (default 0: none; see above).
        stats_key: The info key of the statistics (and ``"_" + stats_key`` of the mask).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis the batch is split
            over. Every shard then holds the global episode count (the number
            of episodes that ended is summed with ``psum``) and the global
            buffer (each step every shard offers its ``buffer_length`` newest
            episodes, and the newest of all of them, in the global env order,
            are kept); the per-env sums, ``info[stats_key]`` and
            :func:`last_episodes` stay the shard's own.

    Example:
        Two Pendulums with episodes of 5 steps: the return reported at the
        end of an episode is the sum of its 5 rewards.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> pendulum, params = gymnax.make("Pendulum-v1")
        >>> params = params.replace(max_steps_in_episode=5)
        >>> env = F.from_gymnax(pendulum, params, num_envs=2)
        >>> env = F.RecordEpisodeStatistics(env, buffer_length=100)  # with the batch's buffer
        >>> _, state = env.reset(jax.random.key(0))
        >>> rewards = []
        >>> for t in range(1, 7):
        ...     s = env.step(state, jnp.ones((2, 1)))
        ...     state = s.state
        ...     rewards.append(s.reward)
        ...     r, l = np.asarray(s.info["episode"]["r"]), np.asarray(s.info["episode"]["l"])
        ...     print(t, np.asarray(s.info["_episode"]), r.round(3), l)  # NaN: no episode ended
        1 [False False] [nan nan] [0 0]
        2 [False False] [nan nan] [0 0]
        3 [False False] [nan nan] [0 0]
        4 [False False] [nan nan] [0 0]
        5 [ True  True] [ -1.865 -35.369] [5 5]
        6 [False False] [nan nan] [0 0]
        >>> np.sum(rewards[:5], axis=0).round(3)
        array([ -1.865, -35.369], dtype=float32)
        >>> returns, lengths, valid = F.last_episodes(state)  # each env's latest episode
        >>> np.asarray(returns).round(3), np.asarray(lengths), np.asarray(valid)
        (array([ -1.865, -35.369], dtype=float32), array([5, 5], dtype=int32),
         array([ True,  True]))
        >>> returns, lengths, valid = F.recent_episodes(state)  # newest first: env 1, env 0
        >>> np.asarray(returns)[:3].round(3), np.asarray(valid)[:3], float(F.episode_count(state))
        (array([-35.369,  -1.865,   0.   ], dtype=float32), array([ True,  True, False]), 2.0)

        Split over an axis (here a ``vmap`` of three unbatched Pendulums),
        each holds the count of all three:

        >>> one = F.RecordEpisodeStatistics(F.from_gymnax(pendulum, params), axis_name="i")
        >>> _, state = jax.vmap(one.reset)(jax.random.split(jax.random.key(0), 3))
        >>> for _ in range(5):
        ...     state = jax.vmap(one.step, axis_name="i")(state, jnp.ones((3, 1))).state
        >>> np.asarray(F.episode_count(state))
        array([3., 3., 3.], dtype=float32)
    """

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
        if not isinstance(buffer_length, numbers.Integral) or isinstance(buffer_length, bool):
            raise TypeError(
                f"{name}: expected `buffer_length` to be an int >= 0, "
                f"got {type(buffer_length).__name__} {buffer_length!r}"
            )
        if buffer_length < 0:
            raise ValueError(f"{name}: expected `buffer_length` >= 0, got {buffer_length!r}")
        if not isinstance(stats_key, str) or not stats_key:
            raise TypeError(
                f"{name}: expected `stats_key` to be a non-empty str, "
                f"got {type(stats_key).__name__} {stats_key!r}"
            )
        self.buffer_length: int = int(buffer_length)
        self.stats_key: str = stats_key
        self.axis_name: AxisName | None = axis_name

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        e = episodes.init_episodes(
            _batch_shape(self.env, obs), xp=jnp, buffer_length=self.buffer_length
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
        reward, terminated, truncated = _once((reward, terminated, truncated))
        split = self.axis_name is not None
        e, out = episodes.step_episodes(
            state.episodes,
            reward,
            terminated,
            truncated,
            now=0.0,
            same_step=self.env.autoreset_mode == AutoresetMode.SAME_STEP,
            timed=False,
            reduce=_psum(self.axis_name),
            gather=_all_gather(self.axis_name) if split and self.buffer_length else None,
        )
        assert out is not None  # report=True (the default) always reports
        info = {
            **info,
            key: {"r": jnp.where(out.done, out.returns, jnp.nan), "l": out.lengths},
            f"_{key}": out.done,
        }
        last = episodes.update_last_episodes(state.last, out)
        return Step(
            obs, EpisodeStatisticsState(inner, e, last), reward, terminated, truncated, info
        )


class NormalizeObservationState(NamedTuple):
    """State of :class:`NormalizeObservation`: the inner state and the moments tree."""

    inner: Any
    obs_stats: Any


class NormalizeObservation(_RunningMeanSwitch, Wrapper):
    """Normalise observations to mean 0, variance 1 with running moments of the whole batch.

    ``obs' = (obs - mean) / sqrt(var + epsilon)``, float32. The moments are
    updated at every reset and step from all rows of the batch (one update
    per step), or, with ``axis_name``, from all rows on every device of that
    mapped axis.

    With SAME_STEP autoreset, ``info["final_obs"]`` (the last observation of
    each episode that ended) is returned normalised with the same statistics,
    so that bootstrapping on truncation sees the policy's inputs. By default
    the statistics learn from the returned observations only, as purejaxrl,
    Brax and Stoix do; then XLA computes the final observations only if the
    program reads them. ``learn_final_obs=True`` learns from them too, so the
    statistics see what they would in NEXT_STEP mode; it costs one more pass
    over the batch and the env's observation function on the pre-reset
    state every step (about 40% of a bare gymnax Pendulum step on a CPU).
    ``anywrap.vector.NormalizeObservation`` has the same switch and default.

    Args:
        env: A functional env with Box (or Dict/Tuple of Box) observations.
        epsilon: Added to the variance under the square root (strictly positive).
        update_running_mean: Whether the statistics learn (False to evaluate).
            Also a settable attribute, read when JAX traces the step: a
            change applies to functions traced after it (JAX reuses the
            trace of a function it has seen, ``env.step`` included).
        learn_final_obs: SAME_STEP only: learn from ``info["final_obs"]`` too.
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: dtype of the moments, ``"float32"`` or ``"float64"``
            (default as Gymnasium: float32 for float32 observations, float64
            for float64 and integer ones, held as float32 when x64 is off).

    Example:
        A bare batch of 64 Pendulums and a normalised one, reset from the same
        key. Before: the mean and std of the 64 observations. After: 0 and 1,
        since the statistics have seen exactly this batch.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
        >>> env = F.NormalizeObservation(bare)
        >>> raw = np.asarray(bare.reset(jax.random.key(0))[0])
        >>> obs, state = env.reset(jax.random.key(0))
        >>> raw.mean(0).round(2), raw.std(0).round(2)
        (array([-0.12,  0.02,  0.01], dtype=float32), array([0.69, 0.72, 0.61], dtype=float32))
        >>> obs = np.asarray(obs)
        >>> np.abs(obs.mean(0)).round(3), obs.std(0).round(3)
        (array([0., 0., 0.], dtype=float32), array([1., 1., 1.], dtype=float32))
        >>> stats = F.find_state(state, F.NormalizeObservationState).obs_stats
        >>> np.asarray(stats.mean).round(2), np.sqrt(np.asarray(stats.var)).round(2)
        (array([-0.12,  0.02,  0.01], dtype=float32), array([0.69, 0.72, 0.61], dtype=float32))

        To evaluate, freeze the statistics: an evaluation stack over the same
        state (or set ``env.update_running_mean = False`` before tracing a new
        function). The count stays at the 64 reset observations (plus
        Gymnasium's 1e-4):

        >>> frozen = F.NormalizeObservation(bare, update_running_mean=False)
        >>> state = jax.jit(frozen.step)(state, jnp.zeros((64, 1))).state
        >>> stats = F.find_state(state, F.NormalizeObservationState).obs_stats
        >>> round(float(stats.count + stats.count_lo), 4)
        64.0001
    """

    def __init__(
        self,
        env: FunctionalEnv,
        epsilon: float = 1e-8,
        *,
        update_running_mean: bool = True,
        learn_final_obs: bool = False,
        axis_name: AxisName | None = None,
        stats_dtype: Any = None,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.epsilon = check_epsilon(name, epsilon)
        self.update_running_mean = update_running_mean
        self.learn_final_obs = flag(name, "learn_final_obs", learn_final_obs)
        self.axis_name: AxisName | None = axis_name
        self.stats_dtype = _stats_dtype_name(name, stats_dtype)
        self._reduce = _psum(axis_name)
        leaf_boxes(name, env.observation_space)
        self._space = map_space(
            lambda s: gym.spaces.Box(-np.inf, np.inf, s.shape, np.float32), env.observation_space
        )

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self._space

    def _rows(self, obs: Any) -> Any:
        return obs if batch_ndim(self.env) else tree_map(lambda x: x[None], obs)

    def _unrows(self, obs: Any) -> Any:
        return obs if batch_ndim(self.env) else tree_map(lambda x: x[0], obs)

    def _normalize(self, stats: Any, obs: Any, update: bool) -> tuple[Any, Any]:
        stats, out = observations.normalize_observation(
            stats,
            self._rows(obs),
            epsilon=self.epsilon,
            update=update,
            reduce=self._reduce,
        )
        return stats, self._unrows(out)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        b = batch_ndim(self.env)
        shapes = tree_map(lambda x: tuple(x.shape[b:]), obs)
        dtypes = tree_map(lambda x: self._stats_dtype(x.dtype), obs)
        stats = observations.init_observation_stats(shapes, xp=jnp, dtype=dtypes)
        stats, out = self._normalize(stats, obs, self.update_running_mean)
        return out, NormalizeObservationState(inner, stats)

    def _stats_dtype(self, dtype: Any) -> Any:
        # The shells' rule (Gymnasium's default, float64 held as float32 without x64).
        return resolve_dtype(jnp, self.stats_dtype or default_stats_dtype(dtype))

    def step(self, state: NormalizeObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        update = self.update_running_mean
        if self.env.autoreset_mode != AutoresetMode.SAME_STEP or "final_obs" not in info:
            stats, out = self._normalize(state.obs_stats, _once(obs), update)
            return Step(
                out,
                state._replace(inner=inner, obs_stats=stats),
                reward,
                terminated,
                truncated,
                info,
            )
        # SAME_STEP: normalise the final observations of the finished episodes
        # too and, with learn_final_obs, learn from them (one update over obs +
        # final rows); like anywrap.vector.NormalizeObservation.
        done = jnp.reshape(jnp.logical_or(terminated, truncated), (-1,))
        final_obs = info["final_obs"]
        if self.learn_final_obs:
            obs, final_obs, done = _once((obs, final_obs, done))
        else:  # no reduction reads final_obs: leave it to XLA to compute only if used
            obs = _once(obs)
        stats, out, final = observations.normalize_observation_with_final(
            state.obs_stats,
            self._rows(obs),
            self._rows(final_obs),
            done,
            epsilon=self.epsilon,
            update=update,
            learn_final=self.learn_final_obs,
            reduce=self._reduce,
        )
        out = self._unrows(out)
        info = {**info, "final_obs": self._unrows(final)}
        return Step(
            out, state._replace(inner=inner, obs_stats=stats), reward, terminated, truncated, info
        )


class NormalizeRewardState(NamedTuple):
    """State of :class:`NormalizeReward`: the inner state and the discounted-return tracker."""

    inner: Any
    returns: returns.Returns


class NormalizeReward(_RunningMeanSwitch, Wrapper):
    """Scale rewards by the running standard deviation of the discounted return.

    ``G <- gamma * G * (1 - terminated) + r``; ``r' = r / sqrt(Var[G] + epsilon)``,
    with ``Var[G]`` the running variance over every env of the batch (and, with
    ``axis_name``, every device). Gymnasium's quirks apply: ``G`` is reset by
    ``terminated`` only, and after an autoreset (SAME_STEP) it restarts at 0.

    Args:
        env: A functional env (batched or not).
        gamma: Discount factor of the return, in [0, 1].
        epsilon: Added to the variance under the square root (strictly positive).
        update_running_mean: Whether the statistics learn (False to evaluate).
            Also a settable attribute, read when JAX traces the step: a
            change applies to functions traced after it (JAX reuses the
            trace of a function it has seen, ``env.step`` included).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: dtype of ``G`` and its statistics, ``"float32"`` or
            ``"float64"``. The default (None) is Gymnasium's: a float32 ``G``
            for a batch (float64 for one env) and float64 statistics, each
            held as float32 when x64 is off.

    Example:
        Two Pendulums left to swing (action 0) for 20 steps, bare and with
        the rewards scaled; the scaled reward is the raw one divided by the
        std of every return ``G`` seen.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.NormalizeReward(bare, gamma=0.99)
        >>> _, raw_state = bare.reset(jax.random.key(0))
        >>> _, state = env.reset(jax.random.key(0))
        >>> action = jnp.zeros((2, 1))
        >>> for _ in range(20):
        ...     raw = bare.step(raw_state, action)
        ...     s = env.step(state, action)
        ...     raw_state, state = raw.state, s.state
        >>> np.asarray(raw.reward).round(3), np.asarray(s.reward).round(4)
        (array([-8.251, -7.374], dtype=float32), array([-0.1808, -0.1615], dtype=float32))
        >>> g = F.find_state(state, F.NormalizeRewardState).returns
        >>> std = np.sqrt(np.asarray(g.rms.var) + 1e-8)
        >>> round(float(std), 2), (np.asarray(raw.reward) / std).round(4)
        (45.65, array([-0.1808, -0.1615], dtype=float32))

        The dtypes of ``G`` and of its statistics: Gymnasium's by default
        (float32 ``G`` for a batch, float64 statistics), or one ``stats_dtype``
        for both. Without x64, JAX holds float64 as float32.

        >>> def dtypes(env):
        ...     g = F.find_state(env.reset(jax.random.key(0))[1], F.NormalizeRewardState).returns
        ...     return g.accumulated.dtype.name, g.rms.var.dtype.name
        >>> with jax.enable_x64(True):
        ...     dtypes(env), dtypes(F.NormalizeReward(bare, stats_dtype="float32"))
        (('float32', 'float64'), ('float32', 'float32'))
        >>> dtypes(env)  # x64 off
        ('float32', 'float32')
    """

    def __init__(
        self,
        env: FunctionalEnv,
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        update_running_mean: bool = True,
        axis_name: AxisName | None = None,
        stats_dtype: Any = None,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.gamma = check_gamma(name, gamma)
        self.epsilon = check_epsilon(name, epsilon)
        self.update_running_mean = update_running_mean
        self.axis_name: AxisName | None = axis_name
        self.stats_dtype = _stats_dtype_name(name, stats_dtype)
        self._reduce = _psum(axis_name)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        if self.stats_dtype is None:  # Gymnasium's: the vector accumulator is float32
            stats = wide_float(jnp)
            acc = jnp.float32 if batch_ndim(self.env) else stats
        else:
            acc = stats = resolve_dtype(jnp, self.stats_dtype)
        # An unbatched env is tracked as a batch of one, so that ``reduce`` applies.
        r = returns.init_returns(
            _batch_shape(self.env, obs) or (1,), xp=jnp, acc_dtype=acc, stats_dtype=stats
        )
        return obs, NormalizeRewardState(inner, r)

    def step(self, state: NormalizeRewardState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        reward, terminated, truncated = _once((reward, terminated, truncated))
        mode = self.env.autoreset_mode
        rows = (lambda x: x) if batch_ndim(self.env) else (lambda x: jnp.reshape(x, (1,)))
        r = returns.update_returns(
            state.returns,
            rows(reward),
            rows(terminated),
            rows(truncated),
            gamma=self.gamma,
            skip_after_done=mode != AutoresetMode.SAME_STEP,
            zero_after_done=mode == AutoresetMode.SAME_STEP,
            update_stats=self.update_running_mean,
            reduce=self._reduce,
        )
        scaled = returns.scale_reward(r, reward, self.epsilon)
        return Step(obs, NormalizeRewardState(inner, r), scaled, terminated, truncated, info)
