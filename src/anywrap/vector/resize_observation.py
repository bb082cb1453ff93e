"""ResizeObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class ResizeObservation(VectorObservationMap):
    """:class:`anywrap.ResizeObservation` for a vector env: the whole batch in one call, in
    every autoreset mode.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.ResizeObservation(envs, (84, 84)).reset(seed=0)[0].shape
        (2, 84, 84, 3)
    """

    __init__ = single.ResizeObservation.__init__
