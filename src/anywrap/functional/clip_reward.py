"""ClipReward for functional envs: every reward clipped to ``[min_reward, max_reward]``."""

from __future__ import annotations

from typing import Any

from anywrap.shell.arrays import check_reward_bounds
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.clip_reward import clip_reward

from .core import FunctionalEnv, Step, Wrapper, constant

__all__ = ["ClipReward"]


class ClipReward(Wrapper):
    """Clip every reward to ``[min_reward, max_reward]``, as :class:`anywrap.ClipReward` does.

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ClipReward(env, -1.0, None)
        >>> _, state = env.reset(jax.random.key(0))
        >>> reward = env.step(state, jnp.zeros((2, 1))).reward
        >>> bool((reward >= -1).all())
        True
    """

    def __init__(self, env: FunctionalEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        super().__init__(env)
        check_reward_bounds(wrapper_name(self), min_reward, max_reward)
        self.min_reward, self.max_reward = min_reward, max_reward

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        low, high = (
            b if b is None or isinstance(b, float | int) else constant(b)
            for b in (self.min_reward, self.max_reward)
        )
        return s._replace(reward=clip_reward(s.reward, low, high))
