"""RepeatAction for a single env."""

from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.checks import check_env_kind, checked_reset

_NAME = "anywrap.RepeatAction"


def check_repeats(owner: str, num_repeats: Any) -> int:
    """Gymnasium's checks of ``num_repeats``: an integer of at least 1."""
    if not np.issubdtype(type(num_repeats), np.integer):
        raise TypeError(
            f"{owner}: `num_repeats` is expected to be an integer, actual type: {type(num_repeats)}"
        )
    if num_repeats < 1:
        raise ValueError(
            f"{owner}: `num_repeats` needs to be equal or greater than one, "
            f"actual value: {num_repeats}"
        )
    return int(num_repeats)


class RepeatAction(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Steps the env ``num_repeats`` times with each action (until an episode ends), summing
    the rewards on their device: :class:`gymnasium.wrappers.RepeatAction`; the flags are
    read on the host (:class:`anywrap.functional.RepeatAction` reads none).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RepeatAction(gym.make("CartPole-v1"), num_repeats=4)
        >>> _ = env.reset(seed=123)
        >>> env.step(1)[1]  # the sum of 4 rewards
        4.0
    """

    def __init__(self, env: gym.Env, num_repeats: int) -> None:
        """Wrap ``env``; ``num_repeats`` (>= 1) steps per action."""
        check_repeats(_NAME, num_repeats)
        gym.utils.RecordConstructorArgs.__init__(self, num_repeats=num_repeats)
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        self.num_repeats = num_repeats

    reset = checked_reset(gym.Wrapper.reset)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        total: Any = 0.0
        for _ in range(self.num_repeats):
            obs, reward, terminated, truncated, info = self.env.step(action)
            if tuple(getattr(reward, "shape", ())) != ():
                raise ValueError(f"{_NAME}: expected a scalar reward, got {xp.describe(reward)}")
            total = total + (float(reward) if xp.is_host(reward) else reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info
