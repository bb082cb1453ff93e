"""ClipReward for vector envs."""

from anywrap.shell.maps import VectorRewardMap
from anywrap.wrappers import transform_reward as single


class ClipReward(VectorRewardMap):
    """:class:`anywrap.ClipReward` for a vector env; the rewards keep their dtype, as in
    Gymnasium (which writes them back into the env's array: never done here).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        >>> anywrap.vector.ClipReward(envs, 0.0, 0.5).rewards(np.array([1.0, -1.0]))
        array([0.5, 0. ])
    """

    __init__ = single.ClipReward.__init__
