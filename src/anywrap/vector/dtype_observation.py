"""DtypeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class DtypeObservation(VectorObservationMap):
    """:class:`anywrap.DtypeObservation` for a vector env (``info["final_obs"]`` cast too).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DtypeObservation(gym.make_vec("CartPole-v1", 2), np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')
    """

    __init__ = single.DtypeObservation.__init__
