"""RescaleObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.rescale_observation import init_rescale_observation

__all__ = ["RescaleObservation"]


class RescaleObservation(VectorObservationMap):
    """Affinely rescales each sub-env's Box observation to ``[min_obs, max_obs]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleObservation`; see
    :class:`anywrap.RescaleObservation`. The result takes the Box's dtype, as
    in Gymnasium.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleObservation(envs, 0.0, 1.0)
        >>> obs, _ = envs.reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_rescale_observation
