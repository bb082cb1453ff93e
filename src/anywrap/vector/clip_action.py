"""ClipAction for vector envs."""

from anywrap.shell.maps import VectorActionMap
from anywrap.wrappers import transform_action as single


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
