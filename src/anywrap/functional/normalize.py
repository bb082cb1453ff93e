"""NormalizeObservation and NormalizeReward for functional envs: running statistics of the
whole batch, on the device."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import check_epsilon, check_gamma, check_stats_dtype, flag, wrapper_name
from anywrap.shell.spaces import leaf_boxes, map_space, unbounded_float32
from anywrap.shell.statistics import switch_property
from anywrap.transforms.moments import default_stats_dtype
from anywrap.transforms.normalize_observation import (
    init_observation_stats,
    normalize_observation,
    normalize_observation_with_final,
)
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
    from_rows,
    once,
    psum,
    same_step,
)

__all__ = [
    "NormalizeObservation",
    "NormalizeObservationState",
    "NormalizeReward",
    "NormalizeRewardState",
]


class NormalizeObservationState(NamedTuple):
    """State of :class:`NormalizeObservation`: the inner state and the moments tree."""

    inner: Any
    obs_stats: Any


class NormalizeObservation(Wrapper):
    """Normalise observations to mean 0, variance 1 with running moments of the whole batch.

    ``obs' = (obs - mean) / sqrt(var + epsilon)``, float32; the moments learn from
    every row of the batch at every reset and step. Under SAME_STEP autoreset
    ``info["final_obs"]`` is normalised with the same statistics.

    Args:
        env: A functional env with Box (or Dict/Tuple of Box) observations.
        epsilon: Added to the variance under the square root (strictly positive).
        update_running_mean: Whether the statistics learn (False to evaluate); a
            settable attribute, read when JAX traces the step.
        learn_final_obs: SAME_STEP only: learn from ``info["final_obs"]`` too, as
            ``anywrap.vector.NormalizeObservation`` (one more pass per step).
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: dtype of the moments, ``"float32"`` or ``"float64"``
            (default as Gymnasium's, held as float32 when x64 is off).
        initial_stats: The statistics ``reset`` starts from instead of fresh ones:
            a moments tree (``find_state(state, NormalizeObservationState).obs_stats``),
            or a function of the fresh tree returning one shaped like it.
        stats_gradient: Whether gradients flow through the statistics update too
            (default: they are a constant of the gradient; see the guide "Gradients").

    Example:
        64 Pendulums reset from one key, normalised by the statistics of this batch:

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
        >>> obs, state = F.NormalizeObservation(bare).reset(jax.random.key(0))
        >>> abs(obs.mean(0)).round(3).tolist(), obs.std(0).round(3).tolist()
        ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])

        An evaluation env that starts from those statistics and keeps them:

        >>> stats = state.obs_stats
        >>> env = F.NormalizeObservation(bare, update_running_mean=False, initial_stats=stats)
        >>> _, state = env.reset(jax.random.key(1))
        >>> state = jax.jit(env.step)(state, jnp.zeros((64, 1))).state
        >>> bool((state.obs_stats.mean == stats.mean).all())
        True
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
        stats = init_observation_stats(shapes, xp=jnp, dtype=dtypes)
        if self.initial_stats is not None:
            stats = self._initial(stats)
        stats, out = normalize_observation(stats, as_rows(self.env, obs), **self._options())
        return from_rows(self.env, out), NormalizeObservationState(inner, stats)

    def _options(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "update": self.update_running_mean,
            "reduce": psum(self.axis_name),
            "stats_gradient": self.stats_gradient,
        }

    def _initial(self, fresh: Any) -> Any:
        """``initial_stats`` (or its value for ``fresh``), checked against ``fresh``."""
        given = self.initial_stats
        stats = given(fresh) if callable(given) else given
        shapes, got = jax.tree.map(jnp.shape, fresh), jax.tree.map(jnp.shape, stats)
        if jax.tree.structure(stats) != jax.tree.structure(fresh) or got != shapes:  # type: ignore[operator]
            raise ValueError(
                f"{wrapper_name(self)}: expected initial_stats shaped like this env's "
                f"statistics, {shapes}; got {got}"
            )
        return jax.tree.map(lambda a, b: jnp.asarray(a, dtype=b.dtype), stats, fresh)

    def step(self, state: NormalizeObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        options = self._options()
        if not same_step(self.env) or "final_obs" not in info:
            stats, out = normalize_observation(
                state.obs_stats, as_rows(self.env, once(obs)), **options
            )
        else:
            done = jnp.reshape(jnp.logical_or(terminated, truncated), (-1,))
            final = info["final_obs"]
            if self.learn_final_obs:
                obs, final, done = once((obs, final, done))
            else:  # no reduction reads final_obs: XLA computes it only if it is used
                obs = once(obs)
            stats, (out, final) = normalize_observation_with_final(
                state.obs_stats,
                as_rows(self.env, obs),
                as_rows(self.env, final),
                done,
                learn_final=self.learn_final_obs,
                **options,
            )
            info = {**info, "final_obs": from_rows(self.env, final)}
        state = NormalizeObservationState(inner, stats)
        return Step(from_rows(self.env, out), state, reward, terminated, truncated, info)


class NormalizeRewardState(NamedTuple):
    """State of :class:`NormalizeReward`: the inner state and the discounted-return tracker."""

    inner: Any
    returns: Returns


class NormalizeReward(Wrapper):
    """Scale rewards by the running standard deviation of the discounted return.

    ``G <- gamma * G * (1 - terminated) + r``; ``r' = r / sqrt(Var[G] + epsilon)``,
    with ``Var[G]`` over every env of the batch. Gymnasium's quirks apply: only
    ``terminated`` resets ``G``, and after a SAME_STEP autoreset it restarts at 0.

    Args:
        env: A functional env (batched or not).
        gamma: Discount factor of the return, in [0, 1].
        epsilon: Added to the variance under the square root (strictly positive).
        update_running_mean: Whether the statistics learn (False to evaluate); a
            settable attribute, read when JAX traces the step.
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: dtype of ``G`` and its statistics, ``"float32"`` or
            ``"float64"``; by default Gymnasium's (a float32 ``G`` for a batch,
            float64 for one env, float64 statistics), held as float32 without x64.
        stats_gradient: Whether gradients flow through the statistics update too
            (default: they are a constant of the gradient; see the guide "Gradients").

    Example:
        Two Pendulums for 20 steps: the reward divided by the std of every ``G`` seen.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.NormalizeReward(bare, gamma=0.99)
        >>> _, state = env.reset(jax.random.key(0))
        >>> for _ in range(20):
        ...     prev, step = state, env.step(state, jnp.zeros((2, 1)))
        ...     state = step.state
        >>> raw = bare.step(prev.inner, jnp.zeros((2, 1))).reward  # the last step's, unscaled
        >>> std = jnp.sqrt(state.returns.rms.var + 1e-8)
        >>> round(float(std), 2), bool(jnp.allclose(step.reward, raw / std))
        (45.65, True)
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
        # an unbatched env is a batch of one, so that ``reduce`` applies
        r = init_returns(
            batch_shape(self.env, obs) or (1,), xp=jnp, acc_dtype=acc, stats_dtype=stats
        )
        return obs, NormalizeRewardState(inner, r)

    def step(self, state: NormalizeRewardState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
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
