"""GrayscaleObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.grayscale_observation import init_grayscale_observation

__all__ = ["GrayscaleObservation"]


class GrayscaleObservation(VectorObservationMap):
    """Converts a vector env's RGB image observations to grayscale (on any library but TensorFlow).

    Drop-in for :class:`gymnasium.wrappers.vector.GrayscaleObservation`; see
    :class:`anywrap.GrayscaleObservation`. One batched call, and in SAME_STEP
    mode (which Gymnasium's refuses) ``info["final_obs"]`` is converted too.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.GrayscaleObservation(envs)
        >>> envs.reset(seed=0)[0].shape
        (2, 210, 160)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_grayscale_observation
