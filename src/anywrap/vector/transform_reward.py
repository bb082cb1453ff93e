"""TransformReward for vector envs."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

from anywrap.shell.checks import autoreset_mode_property, callable_argument, checked_reset
from anywrap.shell.fusion import FusedStep, Part, Piece
from anywrap.shell.maps import VectorRewardMap


class TransformReward(FusedStep, gym.wrappers.vector.TransformReward):
    """:class:`gymnasium.wrappers.vector.TransformReward`, with anywrap's checks: ``func``
    maps every batch of rewards, which pass untouched. On device arrays ``func`` joins the
    stack's one program a step, as :class:`TransformObservation`'s does.

    Example:
        >>> import gymnasium as gym, anywrap, numpy as np
        >>> envs = anywrap.vector.TransformReward(gym.make_vec("CartPole-v1", 2), lambda r: 2 * r)
        >>> envs.rewards(np.array([1.0, 0.5]))
        array([2., 1.])
    """

    def __init__(self, env: VectorEnv, func: Callable[[Any], Any]) -> None:
        callable_argument("anywrap.vector.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.vector.TransformReward.reset)
    autoreset_mode = autoreset_mode_property()
    _after_step = VectorRewardMap._after_step

    def _part(self, out: Any) -> Part | None:  # ``func`` traced, as TransformObservation's
        if type(self).rewards is not gym.wrappers.vector.TransformReward.rewards:
            return None
        fusable = getattr(type(self.func), "__hash__", None)
        return Part(Piece(self.func, "reward", stateful=False)) if fusable else None
