"""ClipReward for vector envs."""

from functools import partial
from typing import Any

from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import check_reward_bounds, reward_bound
from anywrap.shell.maps import VectorRewardMap
from anywrap.transforms.clip_reward import clip_reward

__all__ = ["ClipReward"]


class ClipReward(VectorRewardMap):
    """Clips each sub-env's reward to ``[min_reward, max_reward]``, in the rewards' library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipReward`; see
    :class:`anywrap.ClipReward`. The rewards keep their dtype, as in Gymnasium
    (which writes the clipped values back into the reward array; never done
    in place here).

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
        """Wrap the vector env ``env``; the bounds as :class:`anywrap.ClipReward`'s."""
        name, _ = self._start(env, min_reward=min_reward, max_reward=max_reward)
        check_reward_bounds(name, min_reward, max_reward)
        self._wrap(env)
        self.min_reward, self.max_reward = min_reward, max_reward
        bounds = reward_bound(min_reward), reward_bound(max_reward)
        # Gymnasium's vector wrapper writes the clipped values back into the reward array
        self._set_map(name, partial(clip_reward, keep_dtype=True), None, *bounds)
