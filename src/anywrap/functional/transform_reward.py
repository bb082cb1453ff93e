"""TransformReward for functional envs: a pure function of every reward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from anywrap.shell.checks import callable_argument, wrapper_name

from .core import FunctionalEnv, Step, Wrapper

__all__ = ["TransformReward"]


class TransformReward(Wrapper):
    """Apply a pure function ``func`` to every reward.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
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
