"""ReshapeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class ReshapeObservation(VectorObservationMap):
    """:class:`anywrap.ReshapeObservation` for a vector env; the batch takes the space's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.ReshapeObservation(gym.make_vec("CartPole-v1", 3), (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)
    """

    __init__ = single.ReshapeObservation.__init__
