"""AtariPreprocessing for a single env."""

import numbers
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.checks import check_env_kind, checked_reset, flag, step_values, wrong_type
from anywrap.shell.images import frames_check, grayscale_map, image_space
from anywrap.transforms.atari_preprocessing import atari_frame

_NAME = "anywrap.AtariPreprocessing"


def _screen(size: Any) -> tuple[int, int] | None:
    """Gymnasium's ``screen_size`` rule: a positive int, or a tuple of two (width, height)."""
    size = (size, size) if isinstance(size, int) else size
    ok = isinstance(size, tuple) and len(size) == 2
    return size if ok and all(isinstance(s, int) and s > 0 for s in size) else None


class AtariPreprocessing(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Machado et al. (2018)'s Atari preprocessing on the env's library and device:
    :class:`gymnasium.wrappers.AtariPreprocessing`, but its frames are the env's observations
    through :class:`anywrap.GrayscaleObservation` and :class:`anywrap.ResizeObservation`
    (Gymnasium's read ALE's screens, whose grayscale differs by up to 11 levels).

    Args:
        env: An Atari env (uint8 RGB frames, no frame skip of its own).
        noop_max: At most this many NOOPs (action 0) after a reset; 0: none.
        frame_skip: Steps per action.
        screen_size: The frames' size: an int, or ``(width, height)``.
        terminal_on_life_loss: ``terminated`` when a life is lost.
        grayscale_obs: Grayscale frames, else RGB.
        grayscale_newaxis: A channel axis of 1 on grayscale frames.
        scale_obs: ``float32`` frames in [0, 1], else uint8.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> anywrap.AtariPreprocessing(gym.make("ALE/Pong-v5", frameskip=1)).reset(seed=0)[0].shape
        (84, 84)
    """

    def __init__(
        self,
        env: gym.Env,
        noop_max: int = 30,
        frame_skip: int = 4,
        screen_size: int | tuple[int, int] = 84,
        terminal_on_life_loss: bool = False,
        grayscale_obs: bool = True,
        grayscale_newaxis: bool = False,
        scale_obs: bool = False,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            noop_max=noop_max,
            frame_skip=frame_skip,
            screen_size=screen_size,
            terminal_on_life_loss=terminal_on_life_loss,
            grayscale_obs=grayscale_obs,
            grayscale_newaxis=grayscale_newaxis,
            scale_obs=scale_obs,
        )
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        for k, v in (("noop_max", noop_max), ("frame_skip", frame_skip)):  # signs: below
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise wrong_type(_NAME, k, "an int", v)
        terminal_on_life_loss, grayscale_obs, grayscale_newaxis, scale_obs = (
            flag(_NAME, k, v)
            for k, v in (
                ("terminal_on_life_loss", terminal_on_life_loss),
                ("grayscale_obs", grayscale_obs),
                ("grayscale_newaxis", grayscale_newaxis),
                ("scale_obs", scale_obs),
            )
        )
        size = _screen(screen_size) or (0, 0)
        for wrong, what in (
            (frame_skip <= 0, f"`frame_skip` to be positive, actually: {frame_skip}"),
            (0 in size, f"`screen_size` to be positive, actually: {screen_size}"),
            (noop_max < 0, f"`noop_max` to be non-negative, actually: {noop_max}"),
        ):
            if wrong:
                raise ValueError(f"{_NAME}: Expect the {what}")
        if frame_skip > 1 and getattr(env.unwrapped, "_frameskip", 1) != 1:
            raise ValueError(f"{_NAME}: expected an env without frame skipping (frameskip=1)")
        meanings = getattr(env.unwrapped, "get_action_meanings", lambda: ["NOOP"])()
        if noop_max > 0 and meanings[0] != "NOOP":
            raise ValueError(f"{_NAME}: expected action 0 to be NOOP, got {meanings[0]!r}")
        if terminal_on_life_loss and getattr(env.unwrapped, "ale", None) is None:
            raise ValueError(
                f"{_NAME}: terminal_on_life_loss expected an ALE env (env.unwrapped.ale)"
            )
        space = image_space(_NAME, env.observation_space, rgb=grayscale_obs)
        self._check = frames_check(_NAME, tuple(space.shape))
        self._gray = xp.Compiled(grayscale_map(_NAME, space, False).fn) if grayscale_obs else None
        self.noop_max, self.frame_skip, self.screen_size = noop_max, frame_skip, size
        self.terminal_on_life_loss = terminal_on_life_loss
        self.grayscale_obs, self.grayscale_newaxis = grayscale_obs, grayscale_newaxis
        self.scale_obs = scale_obs
        hw = (size[1], size[0])  # screen_size is (width, height)
        newaxis = grayscale_obs and grayscale_newaxis
        fn = partial(atari_frame, size=hw, pool=frame_skip > 1, scale=scale_obs, newaxis=newaxis)
        self._frame = xp.Compiled(fn)
        frame = tuple(space.shape[:2]) if grayscale_obs else tuple(space.shape)
        self.obs_buffer = [np.zeros(frame, np.uint8), np.zeros(frame, np.uint8)]
        self.lives, self.game_over = 0, False
        shape = (*hw, 1) if newaxis else hw if grayscale_obs else (*hw, 3)
        low, high, dtype = (0, 1, np.float32) if scale_obs else (0, 255, np.uint8)
        self.observation_space = gym.spaces.Box(low, high, shape, dtype)

    @property
    def ale(self) -> Any:
        """The ALE interface of the env (Gymnasium's)."""
        return self.env.unwrapped.ale  # type: ignore[attr-defined]

    def _kept(self, obs: Any) -> Any:
        self._check(obs)
        return obs if self._gray is None else self._gray(obs)

    def _observation(self) -> Any:
        newest, obs = self._frame(*self.obs_buffer)
        self.obs_buffer[0] = newest
        return obs

    def _count_lives(self) -> int:
        ale = getattr(self.env.unwrapped, "ale", None)
        return 0 if ale is None else int(ale.lives())

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        total_reward: Any = 0.0
        terminated, truncated, info = False, False, dict[str, Any]()
        game_over, lives, kept = self.game_over, self.lives, {}
        for t in range(self.frame_skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            reward = step_values(_NAME, reward, terminated, truncated, None)
            total_reward = total_reward + reward
            game_over = terminated
            if self.terminal_on_life_loss:
                new_lives = self._count_lives()
                terminated = terminated or new_lives < lives
                game_over, lives = terminated, new_lives
            if terminated or truncated:
                break
            if t >= self.frame_skip - 2:  # the last two frames: older in [1], newest in [0]
                kept[int(t == self.frame_skip - 2)] = self._kept(obs)
        # The state changes once every skipped step's values have passed their checks.
        self.game_over, self.lives = game_over, lives
        for i, frame in kept.items():
            self.obs_buffer[i] = frame
        return self._observation(), total_reward, terminated, truncated, info

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, reset_info = self.env.reset(seed=seed, options=options)
        noops = self.env.unwrapped.np_random.integers(1, self.noop_max + 1) if self.noop_max else 0
        for _ in range(noops):
            obs, _, terminated, truncated, step_info = self.env.step(0)
            reset_info.update(step_info)
            if terminated or truncated:
                obs, reset_info = self.env.reset(seed=seed, options=options)
        self.lives = self._count_lives()
        newest = self._kept(obs)
        self.obs_buffer = [newest, xp.namespace(newest).zeros_like(newest)]
        return self._observation(), reset_info
