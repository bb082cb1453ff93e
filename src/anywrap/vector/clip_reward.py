"""ClipReward for vector envs."""

from functools import partial
from typing import Any

from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import check_reward_bounds, reward_bound
from anywrap.shell.maps import VectorRewardMap
from anywrap.transforms.clip_reward import clip_reward


class ClipReward(VectorRewardMap):
    """:class:`anywrap.ClipReward` for a vector env; the rewards keep their dtype, as in
    Gymnasium (which writes them back into the env's array: never done here).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        >>> anywrap.vector.ClipReward(envs, 0.0, 0.5).rewards(np.array([1.0, -1.0]))
        array([0.5, 0. ])

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        name, _ = self._start(env, min_reward=min_reward, max_reward=max_reward)
        check_reward_bounds(name, min_reward, max_reward)
        self._wrap(env)
        self.min_reward, self.max_reward = min_reward, max_reward
        bounds = reward_bound(min_reward), reward_bound(max_reward)
        self._set_map(name, partial(clip_reward, keep_dtype=True), None, *bounds)
