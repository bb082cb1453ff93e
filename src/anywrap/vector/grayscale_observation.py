"""GrayscaleObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class GrayscaleObservation(VectorObservationMap):
    """:class:`anywrap.GrayscaleObservation` for a vector env, in one batched call; in
    SAME_STEP mode (which Gymnasium's refuses) ``info["final_obs"]`` is converted too.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.GrayscaleObservation(envs).reset(seed=0)[0].shape
        (2, 210, 160)
    """

    __init__ = single.GrayscaleObservation.__init__
