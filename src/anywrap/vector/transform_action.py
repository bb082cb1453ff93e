"""TransformAction for vector envs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset

__all__ = ["TransformAction"]


class TransformAction(gym.wrappers.vector.TransformAction):
    """Applies ``func`` to every batch of actions before the env sees it; arrays pass
    untouched.

    Identical to :class:`gymnasium.wrappers.vector.TransformAction` (same
    arguments, and its warning when ``action_space`` is not the batch of
    ``single_action_space``).

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2)
        >>> envs = anywrap.vector.TransformAction(envs, lambda a: 0.3 * a)
        >>> _ = envs.reset(seed=123)
        >>> obs = envs.step(np.ones((2, 1), np.float32))[0]  # the envs got 0.3
        >>> [round(x, 4) for x in obs[:, 0].tolist()]
        [-0.4635, -0.4431]
    """

    def __init__(
        self,
        env: VectorEnv,
        func: Callable[[Any], Any],
        action_space: gym.Space | None = None,
        single_action_space: gym.Space | None = None,
    ) -> None:
        """Wrap ``env`` so that batches of actions pass through ``func``."""
        check_env_kind(self, env)
        callable_argument("anywrap.vector.TransformAction", "func", func)
        super().__init__(env, func, action_space, single_action_space)

    reset = checked_reset(gym.wrappers.vector.TransformAction.reset)
