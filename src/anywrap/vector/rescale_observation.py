"""RescaleObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class RescaleObservation(VectorObservationMap):
    """:class:`anywrap.RescaleObservation` for a vector env; the result takes the Box's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> obs, _ = anywrap.vector.RescaleObservation(envs, 0.0, 1.0).reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)
    """

    __init__ = single.RescaleObservation.__init__
