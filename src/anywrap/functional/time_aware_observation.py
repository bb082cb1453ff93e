"""TimeAwareObservation for functional envs: each episode's step count added to the observation."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import whole_number, wrapper_name
from anywrap.shell.time import time_aware_space
from anywrap.transforms.time_aware_observation import time_aware, time_aware_reset
from anywrap.transforms.time_limit import Clock, init_clock

from .core import FunctionalEnv, Step, Wrapper, autoreset, batch_ndim, batch_shape
from .time_limit import TimeLimit

__all__ = ["TimeAwareObservation", "TimeAwareObservationState"]


class TimeAwareObservationState(NamedTuple):
    """State of :class:`TimeAwareObservation`: the inner state and each environment's clock."""

    inner: Any
    clock: Clock


class TimeAwareObservation(Wrapper):
    """Add each environment's episode step count to its observation, as Gymnasium does;
    ``max_timesteps`` is given or read from a :class:`TimeLimit` below.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.TimeLimit(F.from_func_env(PendulumFunctional()), 3))
        >>> env = F.TimeAwareObservation(env, normalize_time=True)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> times = [float(obs[-1])]
        >>> for _ in range(4):
        ...     step = env.step(state, jnp.zeros((1,)))
        ...     state = step.state
        ...     times.append(round(float(step.obs[-1]), 3))
        >>> times  # the third step truncates: the new episode starts at 0
        [0.0, 0.333, 0.667, 0.0, 0.333]
    """

    state_type = TimeAwareObservationState
    per_env_fields = ("clock",)

    def __init__(
        self,
        env: FunctionalEnv,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        steps = (
            _limit_below(name, env)
            if max_timesteps is None
            else whole_number(name, "max_timesteps", max_timesteps, 1)
        )
        self._space, self._feature = time_aware_space(
            name,
            env.observation_space,
            steps,
            normalize_time,
            dict_time_key,
            flatten,
            batch_ndim(env),
        )
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        clock = init_clock(batch_shape(self.env, obs), xp=jnp)
        clock, out = time_aware_reset(clock, obs, feature=self._feature)
        return out, TimeAwareObservationState(inner, clock)

    def step(self, state: TimeAwareObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        clock, (out, final) = time_aware(
            state.clock,
            obs,
            terminated,
            truncated,
            info.get("final_obs"),
            feature=self._feature,
            autoreset=autoreset(self.env),
        )
        if final is not None:
            info = {**info, "final_obs": final}
        return Step(
            out, TimeAwareObservationState(inner, clock), reward, terminated, truncated, info
        )


def _limit_below(owner: str, env: Any) -> int:
    """``max_episode_steps`` of the first :class:`TimeLimit` in ``env``'s stack."""
    while env is not None and not isinstance(env, TimeLimit):
        env = getattr(env, "env", None)
    if env is None:
        raise ValueError(f"{owner}: give `max_timesteps`, or place a TimeLimit below this wrapper")
    return int(env.max_episode_steps)
