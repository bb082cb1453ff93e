"""ClipReward for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

from anywrap.shell.arrays import check_reward_bounds, reward_bound
from anywrap.shell.maps import RewardMap
from anywrap.transforms.clip_reward import clip_reward


class ClipReward(RewardMap):
    """Clips every reward to ``[min_reward, max_reward]``: :class:`gymnasium.wrappers.ClipReward`,
    in the reward's library (a Python float comes back as ``np.float64``, as ``np.clip``'s).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.ClipReward(gym.make("CartPole-v1"), 0.0, 0.5).reward(1.0)
        np.float64(0.5)
    """

    def __init__(self, env: Any, min_reward: Any = None, max_reward: Any = None) -> None:
        """Wrap ``env``; ``min_reward`` / ``max_reward``: numbers, arrays or ``None``."""
        name, batch = self._start(env, min_reward=min_reward, max_reward=max_reward)
        check_reward_bounds(name, min_reward, max_reward)
        self._wrap(env)
        self.min_reward, self.max_reward = min_reward, max_reward
        bounds = reward_bound(min_reward), reward_bound(max_reward)
        self._set_map(name, partial(clip_reward, keep_dtype=bool(batch)), None, *bounds)
