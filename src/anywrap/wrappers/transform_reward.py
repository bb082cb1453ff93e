"""TransformReward for a single env."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, checked_reset

__all__ = ["TransformReward"]


class TransformReward(gym.wrappers.TransformReward):
    """Applies ``func`` to every reward; any array library passes through untouched.

    Identical to :class:`gymnasium.wrappers.TransformReward` (same arguments).

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> bare = gym.make("CartPole-v1")
        >>> env = anywrap.TransformReward(gym.make("CartPole-v1"), lambda r: 2 * r)
        >>> _, _ = bare.reset(seed=0), env.reset(seed=0)
        >>> bare.step(0)[1], env.step(0)[1]  # CartPole's reward, then the transformed one
        (1.0, 2.0)
    """

    def __init__(self, env: gym.Env, func: Callable[[Any], Any]) -> None:
        """Wrap ``env`` so that rewards pass through ``func``."""
        callable_argument("anywrap.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.TransformReward.reset)
