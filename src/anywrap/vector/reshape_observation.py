"""ReshapeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.reshape_observation import init_reshape_observation

__all__ = ["ReshapeObservation"]


class ReshapeObservation(VectorObservationMap):
    """Reshapes each sub-env's Box observation to ``shape``.

    Drop-in for :class:`gymnasium.wrappers.vector.ReshapeObservation`; see
    :class:`anywrap.ReshapeObservation`. A batch of another shape is refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.ReshapeObservation(envs, (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_reshape_observation
