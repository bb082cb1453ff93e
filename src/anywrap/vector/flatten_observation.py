"""FlattenObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class FlattenObservation(VectorObservationMap):
    """:class:`anywrap.FlattenObservation` for a vector env; the batch takes the flat
    space's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.FlattenObservation(gym.make_vec("Blackjack-v1", 3)).reset()[0].shape
        (3, 45)
    """

    __init__ = single.FlattenObservation.__init__
    _mapped = single.FlattenObservation._mapped
