"""DtypeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.dtype_observation import init_dtype_observation

__all__ = ["DtypeObservation"]


class DtypeObservation(VectorObservationMap):
    """Casts each sub-env's observation to ``dtype``.

    Drop-in for :class:`gymnasium.wrappers.vector.DtypeObservation`; see
    :class:`anywrap.DtypeObservation`. ``info["final_obs"]`` is cast too.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.DtypeObservation(envs, np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_dtype_observation
