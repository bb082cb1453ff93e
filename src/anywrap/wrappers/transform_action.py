"""TransformAction for a single env."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset


class TransformAction(gym.wrappers.TransformAction):
    """:class:`gymnasium.wrappers.TransformAction`, with anywrap's checks: ``func`` maps every
    action, which passes untouched.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = gym.make("MountainCarContinuous-v0")
        >>> env = anywrap.TransformAction(env, lambda a: 0.5 * a + 0.1, env.action_space)
        >>> env.action(np.array([0.0]))
        array([0.1])
    """

    def __init__(
        self, env: gym.Env, func: Callable[[Any], Any], action_space: gym.Space | None
    ) -> None:
        check_env_kind(self, env)
        callable_argument("anywrap.TransformAction", "func", func)
        super().__init__(env, func, action_space)

    reset = checked_reset(gym.wrappers.TransformAction.reset)
