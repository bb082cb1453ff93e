"""NormalizeObservation for functional envs: running moments of the whole batch, on the device."""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

from anywrap.shell.checks import check_epsilon, check_stats_dtype, flag, wrapper_name
from anywrap.shell.spaces import leaf_boxes, map_space
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
        initial_stats: The statistics to start from at ``reset`` instead of
            fresh ones: a moments tree such as another stack's
            ``find_state(state, NormalizeObservationState).obs_stats``, or a
            function that takes the fresh tree and returns one shaped like it
            (called when ``reset`` is traced). With
            ``update_running_mean=False`` this is an evaluation env that
            normalises with training statistics, frozen. A functional-only
            argument: the stateful shells load statistics with
            ``load_state_dict``.
        stats_gradient: Whether gradients flow through the statistics update too
            (default: the statistics are a constant of the gradient; see the guide
            "Gradients").

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

        Or an evaluation env of its own, reset from other keys, that starts from
        those statistics and keeps them:

        >>> evaluation = F.NormalizeObservation(
        ...     bare, update_running_mean=False, initial_stats=stats
        ... )
        >>> obs, eval_state = evaluation.reset(jax.random.key(1))
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
        self._space = map_space(
            lambda s: gym.spaces.Box(-np.inf, np.inf, s.shape, np.float32), env.observation_space
        )

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        b = batch_ndim(self.env)
        shapes = tree_map(lambda x: tuple(x.shape[b:]), obs)
        # Gymnasium's default dtype, float64 held as float32 without x64
        dtypes = tree_map(
            lambda x: resolve_dtype(jnp, self.stats_dtype or default_stats_dtype(x.dtype)), obs
        )
        stats = init_observation_stats(shapes, xp=jnp, dtype=dtypes)
        if self.initial_stats is not None:
            stats = self._initial(stats)
        stats, out = normalize_observation(
            stats,
            as_rows(self.env, obs),
            epsilon=self.epsilon,
            update=self.update_running_mean,
            reduce=psum(self.axis_name),
            stats_gradient=self.stats_gradient,
        )
        return from_rows(self.env, out), NormalizeObservationState(inner, stats)

    def _initial(self, fresh: Any) -> Any:
        """``initial_stats`` (or its value for ``fresh``), checked against the fresh tree."""
        given = self.initial_stats
        stats = given(fresh) if callable(given) else given
        want = jax.tree.structure(fresh)
        if jax.tree.structure(stats) != want or any(  # type: ignore[operator]
            jnp.shape(a) != jnp.shape(b)
            for a, b in zip(jax.tree.leaves(stats), jax.tree.leaves(fresh))
        ):
            shapes = jax.tree.map(jnp.shape, fresh)
            raise ValueError(
                f"{wrapper_name(self)}: expected initial_stats shaped like this env's "
                f"statistics, {shapes}; got {jax.tree.map(jnp.shape, stats)}"
            )
        return jax.tree.map(lambda a, b: jnp.asarray(a, dtype=b.dtype), stats, fresh)

    def step(self, state: NormalizeObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        options = {
            "epsilon": self.epsilon,
            "update": self.update_running_mean,
            "reduce": psum(self.axis_name),
            "stats_gradient": self.stats_gradient,
        }
        if not same_step(self.env) or "final_obs" not in info:
            stats, out = normalize_observation(
                state.obs_stats, as_rows(self.env, once(obs)), **options
            )
        else:
            # SAME_STEP: normalise the final observations of the finished episodes too
            # and, with learn_final_obs, learn from them (one update over obs + final
            # rows), as anywrap.vector.NormalizeObservation does.
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
