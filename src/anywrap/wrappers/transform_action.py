"""TransformAction for a single env."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset

__all__ = ["TransformAction"]


class TransformAction(gym.wrappers.TransformAction):
    """Applies ``func`` to every action before the env sees it; arrays pass untouched.

    Identical to :class:`gymnasium.wrappers.TransformAction` (same arguments):
    ``func`` gets the action as the agent gave it, in any library. Give
    ``action_space`` when ``func`` changes the space.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = gym.make("MountainCarContinuous-v0")
        >>> env = anywrap.TransformAction(env, lambda a: 0.5 * a + 0.1, env.action_space)
        >>> _ = env.reset(seed=123)
        >>> [round(x, 5) for x in env.step(np.array([0.0]))[0].tolist()]  # the env got 0.1
        [-0.46383, -0.0003]
    """

    def __init__(
        self, env: gym.Env, func: Callable[[Any], Any], action_space: gym.Space | None
    ) -> None:
        """Wrap ``env`` so that actions pass through ``func``."""
        check_env_kind(self, env)
        callable_argument("anywrap.TransformAction", "func", func)
        super().__init__(env, func, action_space)

    reset = checked_reset(gym.wrappers.TransformAction.reset)
