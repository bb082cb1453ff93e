"""MaxAndSkipObservation for a single env, and the class both shells share."""

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.images import InPlaceState, box_space, check_frames, check_positive_int
from anywrap.transforms.max_and_skip_observation import (
    init_max_frames,
    max_and_skip,
    max_of_two,
    reset_max_frames,
)


class MaxAndSkipShell(InPlaceState, Shell):
    """What the single and vector MaxAndSkipObservation share: the constructor."""

    def __init__(self, env: Any, skip: int = 4) -> None:
        name, batch = self._start(env, skip=skip)
        self._skip = check_positive_int(name, "skip", skip, 2)
        space = box_space(name, self._single_space(env))
        if batch:
            self._mode = autoreset_mode(name, env)
        if batch and self._mode is AutoresetMode.DISABLED:
            raise ValueError(
                f"{name}: expected a vector env that resets itself (NEXT_STEP or "
                "SAME_STEP), got DISABLED: a sub-env whose episode ends within the skip "
                "would be stepped again before anyone resets it. Skip frames inside each "
                "sub-env instead (gymnasium.make_vec(..., wrappers=[MaxAndSkipObservation]))"
            )
        self._wrap(env)
        self._shape = (*batch, *space.shape)
        self._state = init_max_frames(batch, space.shape, xp=np, dtype=space.dtype)
        step = max_and_skip if batch else max_of_two
        self._transforms = compiled(
            {"reset": with_no_output(reset_max_frames), "step": step}, donate=("reset", "step")
        )


class MaxAndSkipObservation(MaxAndSkipShell, gym.Wrapper):
    """Repeats each action ``skip`` times; returns the maximum of the last two frames and the
    summed reward, on any array library: :class:`gymnasium.wrappers.MaxAndSkipObservation`,
    quirks included: the loop stops at a done, and the two-frame buffer is never cleared
    (a call that ends early returns frames left from an earlier call).

    Args:
        env: An env with a Box observation space.
        skip: How many times each action is repeated (at least 2).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.MaxAndSkipObservation(gym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=123)
        >>> env.step(1)[1]  # the sum of 2 rewards
        2.0
    """

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        total_reward: Any = 0.0
        device_rewards: list[Any] = []
        frames: list[Any] = [None, None]
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            check_frames(self, obs, self._shape)
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
