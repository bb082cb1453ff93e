"""NormalizeObservation for functional envs: running moments of the whole batch, on the device."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import check_epsilon, check_stats_dtype, flag, wrapper_name
from anywrap.shell.spaces import leaf_boxes, map_space, unbounded_float32
from anywrap.shell.statistics import switch_property
from anywrap.transforms.moments import default_stats_dtype
from anywrap.transforms.normalize_observation import (
    init_observation_stats,
    normalize_observation,
    normalize_observation_with_final,
)
from anywrap.tree import tree_map
from anywrap.xp import resolve_dtype

from .core import (
    AxisName,
    FunctionalEnv,
    Step,
    Wrapper,
    as_rows,
    batch_ndim,
    from_rows,
    once,
    psum,
    same_step,
)

__all__ = ["NormalizeObservation", "NormalizeObservationState"]


class NormalizeObservationState(NamedTuple):
    """State of :class:`NormalizeObservation`: the inner state and the moments tree."""

    inner: Any
    obs_stats: Any


class NormalizeObservation(Wrapper):
    """Normalise observations to mean 0, variance 1 with running moments of the whole batch.

    ``obs' = (obs - mean) / sqrt(var + epsilon)``, float32; the moments learn from
    every row of the batch at every reset and step (with ``axis_name``, from every
    device's). Under SAME_STEP autoreset ``info["final_obs"]`` is normalised with
    the same statistics; they learn from it only with ``learn_final_obs=True``
    (as ``anywrap.vector.NormalizeObservation``), which costs one more pass and
    the env's observation of the pre-reset state every step.

    Args:
        env: A functional env with Box (or Dict/Tuple of Box) observations.
        epsilon: Added to the variance under the square root (strictly positive).
        update_running_mean: Whether the statistics learn (False to evaluate); a
            settable attribute, read when JAX traces the step.
        learn_final_obs: SAME_STEP only: learn from ``info["final_obs"]`` too.
        axis_name: A ``shard_map`` / ``pmap`` / ``vmap`` axis to sum statistics over.
        stats_dtype: dtype of the moments, ``"float32"`` or ``"float64"``
            (default as Gymnasium's, held as float32 when x64 is off).
        initial_stats: The statistics ``reset`` starts from instead of fresh ones:
            a moments tree (``find_state(state, NormalizeObservationState).obs_stats``),
            or a function of the fresh tree returning one shaped like it.
        stats_gradient: Whether gradients flow through the statistics update too
            (default: they are a constant of the gradient; see the guide "Gradients").

    Example:
        64 Pendulums reset from one key: normalised by the statistics of exactly
        this batch, the observations have mean 0 and std 1.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
        >>> env = F.NormalizeObservation(bare)
        >>> raw = np.asarray(bare.reset(jax.random.key(0))[0])
        >>> obs, state = env.reset(jax.random.key(0))
        >>> obs = np.asarray(obs)
        >>> np.abs(obs.mean(0)).round(3), obs.std(0).round(3)
        (array([0., 0., 0.], dtype=float32), array([1., 1., 1.], dtype=float32))
        >>> stats = F.find_state(state, F.NormalizeObservationState).obs_stats
        >>> np.allclose(stats.mean, raw.mean(0)), np.allclose(np.sqrt(stats.var), raw.std(0))
        (True, True)

        An evaluation env that starts from those statistics and keeps them:

        >>> evaluation = F.NormalizeObservation(
        ...     bare, update_running_mean=False, initial_stats=stats
        ... )
        >>> _, eval_state = evaluation.reset(jax.random.key(1))
        >>> eval_state = jax.jit(evaluation.step)(eval_state, jnp.zeros((64, 1))).state
        >>> eval_stats = F.find_state(eval_state, F.NormalizeObservationState).obs_stats
        >>> bool(jnp.all(eval_stats.mean == stats.mean)), round(float(eval_stats.count), 4)
        (True, 64.0001)
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
        self._space = map_space(unbounded_float32, env.observation_space)

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

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
        out = from_rows(self.env, out)
        return Step(
            out, NormalizeObservationState(inner, stats), reward, terminated, truncated, info
        )
