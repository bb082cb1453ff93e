"""What AddWhiteNoise and ObstructView share: the draws and the single shells' base.

A NumPy ``Generator`` key makes Gymnasium's own calls in its order (the same frames, bit
for bit); any other key of :mod:`anywrap.xp.random` draws the same distributions.

Example:
    >>> key, noise = draw_noise(np.random.default_rng(0), (2, 2, 3), gray=False)
    >>> noise.dtype, noise.shape
    (dtype('uint8'), (2, 2, 3))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidProbability

from anywrap import xp
from anywrap.shell.checks import checked_reset, flag, real_number, wrapper_name
from anywrap.transforms.noise import GRAY_HIGH, gray_noise, scaled_integers
from anywrap.xp import random

_GRAY_HIGH = 255 * np.array([0.2989, 0.5870, 0.1140])  # Gymnasium's call's bounds


def draw_noise(key: Any, shape: tuple[int, ...], *, gray: bool) -> tuple[Any, Any]:
    """``(key, noise)``: uint8 noise of ``shape`` (``(..., 3)`` when ``gray``), in [0, 255)."""
    if isinstance(key, np.random.Generator):
        if gray:
            channels = key.integers((0, 0, 0), _GRAY_HIGH, size=shape, dtype=np.uint8)
            return key, gray_noise(channels)
        return key, key.integers(0, 255, size=shape, dtype=np.uint8)
    key, u = random.uniform(key, shape)
    return key, gray_noise(scaled_integers(u, GRAY_HIGH)) if gray else scaled_integers(u, 255)


draw_uniform = random.uniform  # ``(key, u)``: floats in [0, 1) (a NumPy Generator's random())


def draw_centers(key: Any, pixels: int, count: tuple[int, ...]) -> tuple[Any, Any]:
    """``(key, centers)``: flat pixel indices in ``[0, pixels)`` of shape ``count``."""
    if isinstance(key, np.random.Generator):
        return key, key.integers(0, pixels, count)
    key, u = random.uniform(key, count)
    return key, scaled_integers(u, pixels, "int32")


def check_white_noise(owner: str, p: Any, gray: Any) -> tuple[float, bool]:
    """Gymnasium's check of AddWhiteNoise's arguments, each of its type first."""
    value = real_number(owner, "probability_of_noise_per_pixel", p)
    if not 0 <= value < 1:
        raise InvalidProbability(
            f"{owner}: expected `probability_of_noise_per_pixel` in [0, 1), got {p!r}"
        )
    return value, flag(owner, "is_noise_grayscale", gray)


def check_obstruction(owner: str, ratio: Any, width: Any, gray: Any) -> bool:
    """Gymnasium's checks of ObstructView's arguments, each of its type first."""
    if not 0 <= real_number(owner, "obstructed_pixels_ratio", ratio) < 1:
        raise ValueError(f"{owner}: expected `obstructed_pixels_ratio` in [0, 1), got {ratio!r}")
    if not np.issubdtype(type(width), np.integer) or width < 1:
        raise ValueError(f"{owner}: expected `obstruction_width` an integer >= 1, got {width!r}")
    return flag(owner, "is_noise_grayscale", gray)


def check_frame(owner: str, frame: Any) -> None:
    """``frame`` must be an array ``(H, W, C)`` (metadata only, no value is read)."""
    if len(getattr(frame, "shape", ())) != 3:
        raise ValueError(f"{owner}: expected a rendered frame (H, W, C), got {xp.describe(frame)}")


def entropy() -> int:
    """A fresh 64-bit seed from the operating system."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class RenderNoise(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A wrapper whose ``render()`` is ``_noisy(key, frame) -> (key, frame)``: NumPy frames
    draw from the env's ``np_random``, others from a key seeded by the last ``reset(seed=)``."""

    _noisy: Callable[[Any, Any], tuple[Any, Any]]
    _key: Any = None
    _home: tuple[str, str] | None = None
    _seed: int | None = None

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env (``options`` checked first); a ``seed`` restarts the own stream."""
        out = self.env.reset(seed=seed, options=options)
        if seed is not None:
            self._seed, self._home = seed, None
        return out

    def render(self) -> Any:
        """The env's frame, with noise."""
        frame = self.env.render()
        check_frame(wrapper_name(self), frame)
        if isinstance(frame, np.ndarray):
            return self._noisy(self.np_random, frame)[1]
        home = (xp.library_name(frame), str(xp.device(frame)))
        if self._home != home:
            seed = entropy() if self._seed is None else self._seed
            self._key = random.new_key(frame, random.derive_seed(seed, type(self).__name__))
            self._home = home
        self._key, out = self._noisy(self._key, frame)
        return out


def like(x: Any, frame: Any) -> Any:
    """``x`` (a draw) in ``frame``'s library and on its device."""
    if type(x) is type(frame):
        return x
    return xp.to_library(x, xp.library_name(frame), xp.device(frame))
