"""Reward vector wrappers: transform, vectorize a single-env one, clip."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorRewardWrapper

from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode_property, callable_argument, checked_reset
from anywrap.shell.fusion import FusedStep, Part, Piece
from anywrap.shell.maps import VectorRewardMap
from anywrap.transforms.vectorize import map_rows
from anywrap.vector.vectorize_observation import single_wrapper
from anywrap.wrappers import transform_reward as single


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


class VectorizeTransformReward(Shell, VectorRewardWrapper):
    """:class:`gymnasium.wrappers.vector.VectorizeTransformReward`, in the rewards' library
    and dtype, never writing over the env's array.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3)
        >>> envs = anywrap.vector.VectorizeTransformReward(
        ...     envs, gym.wrappers.TransformReward, func=lambda r: r > 0 and r or 0.0)
        >>> envs.rewards(np.array([-1.0, 0.5, 2.0]))
        array([0. , 0.5, 2. ])
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.RewardWrapper], **kwargs: Any):
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        self.wrapper = single_wrapper(name, env, wrapper, kwargs)
        VectorRewardWrapper.__init__(self, env)

    def rewards(self, rewards: Any) -> Any:
        return map_rows(self.wrapper.reward, rewards, rewards)


class ClipReward(VectorRewardMap):
    """:class:`anywrap.ClipReward` for a vector env; the rewards keep their dtype, as in
    Gymnasium (which writes them back into the env's array: never done here).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        >>> anywrap.vector.ClipReward(envs, 0.0, 0.5).rewards(np.array([1.0, -1.0]))
        array([0.5, 0. ])
    """

    __init__ = single.ClipReward.__init__
