"""ClipAction for vector envs."""

from anywrap.shell.maps import VectorActionMap
from anywrap.wrappers.clip_action import init_clip_action

__all__ = ["ClipAction"]


class ClipAction(VectorActionMap):
    """Clips each sub-env's action to the Box bounds, in the actions' own library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipAction`, whose output
    takes the action space's dtype (Gymnasium's quirk); see
    :class:`anywrap.ClipAction`.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.ClipAction(envs)
        >>> envs.single_action_space
        Box(-inf, inf, (1,), float32)
        >>> envs.actions(np.array([[5.0], [-0.25], [-3.0]]))
        array([[ 1.  ],
               [-0.25],
               [-1.  ]], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_clip_action
    _state = None  # not a checkpoint layer (as in 0.1)
