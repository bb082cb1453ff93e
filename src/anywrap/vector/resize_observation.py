"""ResizeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.resize_observation import init_resize_observation

__all__ = ["ResizeObservation"]


class ResizeObservation(VectorObservationMap):
    """Resizes a vector env's image observations, on any array library.

    Drop-in for :class:`gymnasium.wrappers.vector.ResizeObservation`; see
    :class:`anywrap.ResizeObservation`. The whole batch is resized in one call,
    in every autoreset mode.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ResizeObservation(envs, (84, 84))
        >>> envs.reset(seed=0)[0].shape
        (2, 84, 84, 3)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_resize_observation
