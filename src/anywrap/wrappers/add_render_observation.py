"""AddRenderObservation for a single env."""

from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.checks import check_env_kind, checked_reset

_NAME = "anywrap.AddRenderObservation"


class AddRenderObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The env's rendered frame as the observation (``render_only``), or beside it in a dict:
    :class:`gymnasium.wrappers.AddRenderObservation`, taking frames of any library.

    Args:
        env: An env whose ``render_mode`` is neither None nor "human".
        render_only: The frame alone as the observation; else a dict of both.
        render_key: The frame's key in the dict.
        obs_key: The env's observation's key, where it is no dict itself.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> obs, _ = anywrap.AddRenderObservation(env, render_only=False).reset(seed=123)
        >>> sorted(obs), obs["pixels"].shape
        (['pixels', 'state'], (400, 600, 3))
    """

    def __init__(
        self,
        env: gym.Env,
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, render_only=render_only, render_key=render_key, obs_key=obs_key
        )
        check_env_kind(self, env)
        if env.render_mode is None or env.render_mode == "human":
            raise ValueError(
                f"{_NAME}: expected a render_mode other than None and 'human', got "
                f"{env.render_mode!r}"
            )
        env.reset()
        pixels: Any = env.render()
        if not hasattr(pixels, "shape") or isinstance(pixels, np.generic):
            raise TypeError(
                f"{_NAME}: expected env.render() to return an array, got {type(pixels)}"
            )
        gym.ObservationWrapper.__init__(self, env)
        pixel_space = gym.spaces.Box(0, 255, tuple(pixels.shape), np.uint8)
        space = env.observation_space
        if render_only:
            self.observation_space = pixel_space
        elif isinstance(space, gym.spaces.Dict):
            if render_key in space.spaces:
                raise ValueError(
                    f"{_NAME}: expected a `render_key` not in the observation space, got "
                    f"{render_key!r}, which is there"
                )
            self.observation_space = gym.spaces.Dict(
                {render_key: pixel_space, **space.spaces}, sort_keys=space.sort_keys
            )
        else:
            self.observation_space = gym.spaces.Dict({obs_key: space, render_key: pixel_space})
        self.render_only, self.render_key, self.obs_key = render_only, render_key, obs_key

    reset = checked_reset(gym.ObservationWrapper.reset)

    def observation(self, observation: Any) -> Any:
        if self.render_only:
            return self.render()
        if isinstance(self.env.observation_space, gym.spaces.Dict):
            return {self.render_key: self.render(), **observation}
        return {self.obs_key: observation, self.render_key: self.render()}
