"""FlattenObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.flatten_observation import init_flatten_observation, mapped_or_explained

__all__ = ["FlattenObservation"]


class FlattenObservation(VectorObservationMap):
    """Flattens each sub-env's observation into one 1-D array (a batch of them).

    Drop-in for :class:`gymnasium.wrappers.vector.FlattenObservation`; see
    :class:`anywrap.FlattenObservation`. The batch takes the flat space's
    dtype, as in Gymnasium, and the env's observation array is never written.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("Blackjack-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.FlattenObservation(envs)
        >>> envs.reset(seed=0)[0].shape
        (3, 45)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_flatten_observation
    _mapped = mapped_or_explained
