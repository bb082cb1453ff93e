"""TransformReward for a single env."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, checked_reset


class TransformReward(gym.wrappers.TransformReward):
    """:class:`gymnasium.wrappers.TransformReward`, with anywrap's checks: ``func`` maps every
    reward, which passes untouched.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.TransformReward(gym.make("CartPole-v1"), lambda r: 2 * r).reward(1.0)
        2.0
    """

    def __init__(self, env: gym.Env, func: Callable[[Any], Any]) -> None:
        callable_argument("anywrap.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.TransformReward.reset)
