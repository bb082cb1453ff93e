"""TimeLimit for functional envs: each episode truncated after ``max_episode_steps`` steps."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode

from anywrap.shell.checks import wrapper_name
from anywrap.shell.time import check_max_episode_steps
from anywrap.transforms.time_limit import Clock, init_clock, time_limit

from .core import FunctionalEnv, Step, Wrapper, batch_shape

__all__ = ["TimeLimit", "TimeLimitState"]


class TimeLimitState(NamedTuple):
    """State of :class:`TimeLimit`: the inner state and each environment's clock."""

    inner: Any
    clock: Clock


class TimeLimit(Wrapper):
    """Truncate each environment's episode once it has taken ``max_episode_steps`` steps.

    Place it below :class:`~anywrap.functional.AutoReset`, over an env that does
    not reset itself.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.TimeLimit(F.from_func_env(PendulumFunctional()), 3))
        >>> _, state = env.reset(jax.random.key(0))
        >>> truncated = []
        >>> for _ in range(4):
        ...     step = env.step(state, jnp.zeros((1,)))
        ...     state = step.state
        ...     truncated.append(bool(step.truncated))
        >>> truncated
        [False, False, True, False]
    """

    state_type = TimeLimitState
    per_env_fields = ("clock",)

    def __init__(self, env: FunctionalEnv, max_episode_steps: int) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                f"{name}: the env resets itself ({env.autoreset_mode}), so it would not "
                "reset the episodes the limit truncates; place TimeLimit below AutoReset, "
                "over an env that does not reset itself"
            )
        self.max_episode_steps = max_episode_steps

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        return obs, TimeLimitState(inner, init_clock(batch_shape(self.env, obs), xp=jnp))

    def step(self, state: TimeLimitState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        clock, (truncated, _) = time_limit(
            state.clock, terminated, truncated, max_steps=self.max_episode_steps
        )
        return Step(obs, TimeLimitState(inner, clock), reward, terminated, truncated, info)
