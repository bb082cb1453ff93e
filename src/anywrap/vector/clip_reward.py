"""ClipReward for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorRewardWrapper

from anywrap.shell.arrays import check_reward_bounds, reward_bound
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorRewardMap
from anywrap.transforms.clip_reward import clip_reward

__all__ = ["ClipReward"]

_NAME = "anywrap.vector.ClipReward"


class ClipReward(VectorRewardMap):
    """Clips each sub-env's reward to ``[min_reward, max_reward]``, in the rewards' library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipReward`; see
    :class:`anywrap.ClipReward`. The rewards keep their dtype (Gymnasium writes
    the clipped values back into the reward array), and are never written in
    place here. One transform call per batch, where Gymnasium loops over the
    sub-envs.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ClipReward(envs, 0.0, 0.5)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[1]
        array([0.5, 0.5])

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        """Wrap ``env``; ``min_reward`` / ``max_reward``: numbers, arrays or ``None``."""
        gym.utils.RecordConstructorArgs.__init__(self, min_reward=min_reward, max_reward=max_reward)
        check_env_kind(self, env)
        check_reward_bounds(_NAME, min_reward, max_reward)
        VectorRewardWrapper.__init__(self, env)
        self.min_reward, self.max_reward = min_reward, max_reward
        bounds = reward_bound(min_reward), reward_bound(max_reward)
        self._set_map(_NAME, partial(clip_reward, keep_dtype=True), None, *bounds)
