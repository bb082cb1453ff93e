"""Action vector wrappers: transform, vectorize a single-env one, clip, rescale."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorActionWrapper, VectorEnv
from gymnasium.vector.utils import batch_space, create_empty_array

from anywrap.shell.base import Shell
from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset
from anywrap.shell.fusion import FusedStep
from anywrap.shell.maps import VectorActionMap
from anywrap.transforms.vectorize import map_rows
from anywrap.vector.vectorize_observation import single_wrapper
from anywrap.wrappers import transform_action as single


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


class VectorizeTransformAction(Shell, VectorActionWrapper):
    """:class:`gymnasium.wrappers.vector.VectorizeTransformAction`, stacking the rows in the
    batch's library (and in the env's action dtype) and never writing over it.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2)
        >>> envs = anywrap.vector.VectorizeTransformAction(
        ...     envs, gym.wrappers.TransformAction, func=lambda a: 0.0 * a, action_space=None)
        >>> envs.actions(np.ones((2, 1), np.float32))
        array([[0.],
               [0.]], dtype=float32)
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.ActionWrapper], **kwargs: Any):
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        self.wrapper = single_wrapper(name, env, wrapper, kwargs)
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.same_out = self.action_space == self.env.action_space
        self._like = create_empty_array(self.env.single_action_space, 1)

    def actions(self, actions: Any) -> Any:
        return map_rows(self.wrapper.action, actions, actions if self.same_out else self._like)


class ClipAction(VectorActionMap):
    """:class:`anywrap.ClipAction` for a vector env; the clipped batch takes the action
    space's dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3, vectorization_mode="sync")
        >>> anywrap.vector.ClipAction(envs).actions(np.array([[5.0], [-0.25], [-3.0]]))
        array([[ 1.  ],
               [-0.25],
               [-1.  ]], dtype=float32)
    """

    _state = None  # not a checkpoint layer (as in 0.1)
    __init__ = single.ClipAction.__init__


class RescaleAction(VectorActionMap):
    """:class:`anywrap.RescaleAction` for a vector env; the batch sent to the env takes the
    env's action dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> anywrap.vector.RescaleAction(envs, 0.0, 1.0).actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)
    """

    __init__ = single.RescaleAction.__init__
