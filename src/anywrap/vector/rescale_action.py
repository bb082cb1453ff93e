"""RescaleAction for vector envs."""

from anywrap.shell.maps import VectorActionMap
from anywrap.wrappers import transform_action as single


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
