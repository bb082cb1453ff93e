"""TransformReward for vector envs."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

from anywrap.shell.checks import autoreset_mode_property, callable_argument, checked_reset

__all__ = ["TransformReward"]


class TransformReward(gym.wrappers.vector.TransformReward):
    """:class:`gymnasium.wrappers.vector.TransformReward`, with anywrap's checks: ``func``
    maps every batch of rewards, which pass untouched.

    Example:
        >>> import gymnasium as gym, anywrap, numpy as np
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.TransformReward(envs, lambda r: np.clip(r, -0.05, 0.05))
        >>> _ = envs.reset(seed=0)
        >>> envs.step(np.array([[0.5], [1.0]]))[1]  # MountainCar's -0.025 and -0.1, clipped
        array([-0.025, -0.05 ])
    """

    def __init__(self, env: VectorEnv, func: Callable[[Any], Any]) -> None:
        callable_argument("anywrap.vector.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.vector.TransformReward.reset)
    autoreset_mode = autoreset_mode_property()
