"""TransformAction for functional envs: a pure function of every action."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, wrapper_name

from .core import FunctionalEnv, Step, Wrapper

__all__ = ["TransformAction"]


class TransformAction(Wrapper):
    """Apply a pure function ``func`` to every action before the env sees it.

    Same arguments as :class:`anywrap.TransformAction` (``action_space``: the
    agent's space, if ``func`` changes it).

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=2)
        >>> env = F.TransformAction(car, lambda a: 0.5 * a)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = jax.jit(env.step)(state, jnp.ones((2, 1)))  # the env gets 0.5
        >>> [round(r, 4) for r in step.reward.tolist()]  # MountainCar charges 0.1 * a**2
        [-0.025, -0.025]
    """

    def __init__(
        self, env: FunctionalEnv, func: Callable[[Any], Any], action_space: gym.Space | None = None
    ) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)
        self._space = action_space

    @property
    def action_space(self) -> Any:  # type: ignore[override]
        return self.env.action_space if self._space is None else self._space

    def step(self, state: Any, action: Any) -> Step:
        return self.env.step(state, self.func(action))
