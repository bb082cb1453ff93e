"""NormalizeReward for functional envs: rewards scaled by the spread of the discounted return."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import check_epsilon, check_gamma, check_stats_dtype, flag, wrapper_name
from anywrap.shell.statistics import switch_property
from anywrap.transforms.normalize_reward import Returns, init_returns, normalize_reward
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

__all__ = ["NormalizeReward", "NormalizeRewardState"]


class NormalizeRewardState(NamedTuple):
    """State of :class:`NormalizeReward`: the inner state and the discounted-return tracker."""

    inner: Any
    returns: Returns


class NormalizeReward(Wrapper):
    """Scale rewards by the running standard deviation of the discounted return.

    ``G <- gamma * G * (1 - terminated) + r``; ``r' = r / sqrt(Var[G] + epsilon)``,
    with ``Var[G]`` over every env of the batch (with ``axis_name``, every device).
    Gymnasium's quirks apply: only ``terminated`` resets ``G``, and after a
    SAME_STEP autoreset it restarts at 0.

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
        Two Pendulums swinging for 20 steps: the scaled reward is the raw one
        divided by the std of every return ``G`` seen.

        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
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
