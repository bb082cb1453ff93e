"""TransformAction for vector envs."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset
from anywrap.shell.fusion import FusedStep
from anywrap.shell.maps import VectorActionMap


class TransformAction(FusedStep, gym.wrappers.vector.TransformAction):
    """:class:`gymnasium.wrappers.vector.TransformAction`, with anywrap's checks: ``func``
    maps every batch of actions, which pass untouched.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", 2)
        >>> anywrap.vector.TransformAction(envs, lambda a: 0.3 * a).actions(np.ones((2, 1)))
        array([[0.3],
               [0.3]])
    """

    def __init__(
        self,
        env: VectorEnv,
        func: Callable[[Any], Any],
        action_space: gym.Space | None = None,
        single_action_space: gym.Space | None = None,
    ) -> None:
        check_env_kind(self, env)
        callable_argument("anywrap.vector.TransformAction", "func", func)
        super().__init__(env, func, action_space, single_action_space)

    reset = checked_reset(gym.wrappers.vector.TransformAction.reset)
    _before_step, _part = VectorActionMap._before_step, VectorActionMap._part
