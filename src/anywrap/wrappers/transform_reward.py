"""Reward wrappers for one env: TransformReward, ClipReward."""

from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.shell.arrays import check_reward_bounds, reward_bound
from anywrap.shell.checks import callable_argument, check_reward, checked_reset
from anywrap.shell.maps import RewardMap
from anywrap.transforms.clip_reward import clip_reward


class TransformReward(gym.wrappers.TransformReward):
    """:class:`gymnasium.wrappers.TransformReward`, with anywrap's checks: ``func`` maps every
    reward, which passes untouched.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.TransformReward(gym.make("CartPole-v1"), lambda r: 2 * r).reward(1.0)
        2.0
    """

    def __init__(self, env: gym.Env, func: Callable[[Any], Any]) -> None:
        callable_argument("anywrap.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.TransformReward.reset)


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
        check = partial(check_reward, name, batch[0] if batch else None)
        self._set_map(name, partial(clip_reward, keep_dtype=bool(batch)), check, *bounds)
