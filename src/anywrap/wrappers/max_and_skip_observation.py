"""MaxAndSkipObservation for a single env."""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind
from anywrap.shell.compiled import compiled
from anywrap.shell.images import InPlaceState, box_space, check_frames, check_positive_int
from anywrap.transforms.max_and_skip_observation import init_max_frames, max_of_two

__all__ = ["MaxAndSkipObservation"]

_NAME = "anywrap.MaxAndSkipObservation"


class MaxAndSkipObservation(InPlaceState, Shell, gym.Wrapper):
    """Repeats each action ``skip`` times; returns the maximum of the last two
    frames and the summed reward, on any array library.

    Drop-in for :class:`gymnasium.wrappers.MaxAndSkipObservation`, quirks
    included: the loop stops at a ``terminated`` or ``truncated`` step, and
    the two-frame buffer is never cleared, so a call that ends before the
    last two steps returns frames left from an earlier call.

    The loop must know whether the episode ended before it steps again, so
    it reads ``terminated`` and ``truncated`` on the host (Gymnasium's envs
    return Python booleans: nothing to sync). Host rewards are summed as
    Gymnasium sums them (Python floats). Frames stay in their library and on
    their device, and a reward that is not a host value is summed there.
    ``anywrap.vector.MaxAndSkipObservation`` reads nothing.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.MaxAndSkipObservation(gym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=123)
        >>> obs, reward, *_ = env.step(1)
        >>> obs.shape, reward
        ((4,), 2.0)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, skip: int = 4) -> None:
        """Wrap ``env`` (a Box observation space).

        Args:
            env: The env to wrap.
            skip: How many times each action is repeated (at least 2).
        """
        gym.utils.RecordConstructorArgs.__init__(self, skip=skip)
        check_env_kind(self, env)
        self._skip = check_positive_int(_NAME, "skip", skip, 2)
        space = box_space(_NAME, env.observation_space)
        gym.Wrapper.__init__(self, env)
        self._frame = tuple(space.shape)
        self._state = init_max_frames((), self._frame, xp=np, dtype=space.dtype)
        self._transforms = compiled({"step": max_of_two}, donate=("step",))

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step ``skip`` times (fewer if the episode ends) with ``action``."""
        total_reward: Any = 0.0
        device_rewards: list[Any] = []
        frames: list[Any] = [None, None]
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            check_frames(_NAME, obs, self._frame)
            if i >= self._skip - 2:
                frames[i - (self._skip - 2)] = obs
            if xp.is_host(reward):
                total_reward += float(reward)
            else:
                device_rewards.append(reward)
            if terminated or truncated:
                break
        out, summed = self._run(
            self._transforms["step"], obs, frames[0], frames[1], tuple(device_rewards)
        )
        if summed is not None:
            total_reward = summed + total_reward if total_reward else summed
        return out, total_reward, terminated, truncated, info
