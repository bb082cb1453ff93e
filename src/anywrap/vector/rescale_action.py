"""RescaleAction for vector envs."""

from anywrap.shell.maps import VectorActionMap
from anywrap.wrappers.rescale_action import init_rescale_action

__all__ = ["RescaleAction"]


class RescaleAction(VectorActionMap):
    """Affinely rescales each sub-env's Box action space to ``[min_action, max_action]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleAction`; see
    :class:`anywrap.RescaleAction`. The batch sent to the env takes the env's
    action dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleAction(envs, 0.0, 1.0)
        >>> envs.actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_rescale_action
