"""A rendering, Atari-like env for the rendering wrappers' tests.

:class:`FakeAtari` returns RGB frames (:class:`image_helpers.ImageEnv`'s) as
observations, ``render()`` gives the same frame, and it has what Gymnasium's
``AtariPreprocessing`` reads from an ALE env: ``unwrapped.ale`` (``lives()``,
``getScreenRGB``, ``getScreenGrayscale``), ``get_action_meanings()`` with NOOP
first, and ``_frameskip = 1``. A life is lost every ``life_every`` steps; an
episode ends after ``length`` steps (terminated on even episodes, else truncated).
Its ALE grayscale is Gymnasium's ``GrayscaleObservation`` formula (real ALE
uses its palette's luminance). ``library`` puts observations and frames in
that library (rewards and flags stay Python values, as Gymnasium's envs give
them); the ALE screens are always NumPy.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from helpers import make_backend
from image_helpers import SMALL, ImageEnv

ENV_ID = "anywrap-test/FakeAtari-v0"


class _Ale:
    def __init__(self, env: FakeAtari) -> None:
        self.env = env

    def lives(self) -> int:
        return self.env.lives

    def getScreenRGB(self, out: np.ndarray) -> None:
        out[...] = self.env.screen

    def getScreenGrayscale(self, out: np.ndarray) -> None:
        out[...] = gym.wrappers.GrayscaleObservation(self.env).observation(self.env.screen)


class FakeAtari(gym.Env):
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        render_mode: str | None = None,
        length: int = 11,
        shape: tuple[int, ...] = SMALL,
        life_every: int = 4,
        library: str = "numpy",
    ) -> None:
        self.render_mode, self.life_every = render_mode, life_every
        self.source = ImageEnv(0, length, shape)
        self.observation_space = self.source.observation_space
        self.action_space = gym.spaces.Discrete(4)
        self.ale, self._frameskip, self.lives = _Ale(self), 1, 3
        self.convert = make_backend(library).to_backend if library != "numpy" else None

    def get_action_meanings(self) -> list[str]:
        return ["NOOP", "FIRE", "LEFT", "RIGHT"]

    def _out(self, frame: np.ndarray) -> Any:
        self.screen = frame
        return frame.copy() if self.convert is None else self.convert(frame)

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        super().reset(seed=seed)
        self.lives = 3
        return self._out(self.source.reset()[0]), {"lives": self.lives}

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, _ = self.source.step(int(action))
        self.lives -= self.source.t % self.life_every == 0
        return self._out(obs), reward, terminated, truncated, {"lives": self.lives}

    def render(self) -> Any:
        return self._out(self.screen)

    def sample_action(self) -> int:
        return 1


if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point=FakeAtari)


def make(library: str = "numpy", **kwargs: Any) -> gym.Env:
    """A registered :class:`FakeAtari` rendering RGB arrays (so that a spec names it)."""
    return gym.make(ENV_ID, render_mode="rgb_array", library=library, **kwargs)
