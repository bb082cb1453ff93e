"""ObstructView for functional envs: squares of noise on image observations, jittable."""

from __future__ import annotations

import math
from typing import Any

from anywrap.shell.checks import wrapper_name
from anywrap.shell.noise import check_obstruction, draw_centers, draw_noise
from anywrap.transforms.noise import obstruct

from .add_white_noise import NoiseMap
from .core import FunctionalEnv

__all__ = ["ObstructView"]


class ObstructView(NoiseMap):
    """Covers the image observations with squares of white noise, jittable.

    Same arguments as :class:`anywrap.ObstructView`, which covers ``render()``'s
    frames: a functional env has no ``render()``, so here the observations are
    the frames (``int(H * W * ratio / width**2)`` squares each, one key for the
    batch, split from ``reset(key)``).

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym
        >>> from gymnasium.vector import AutoresetMode
        >>> from anywrap import functional as F
        >>> class Black:  # 8x8 black RGB frames
        ...     observation_space = gym.spaces.Box(0, 255, (8, 8, 3), "uint8")
        ...     action_space = gym.spaces.Discrete(2)
        ...     num_envs, autoreset_mode = None, AutoresetMode.DISABLED
        ...     def reset(self, key):
        ...         return jnp.zeros((8, 8, 3), jnp.uint8), jnp.zeros(())
        ...     def step(self, s, action):
        ...         no = jnp.zeros((), bool)
        ...         return F.Step(jnp.zeros((8, 8, 3), jnp.uint8), s, s, no, no, {})
        >>> env = F.ObstructView(Black(), obstructed_pixels_ratio=0.3, obstruction_width=2)
        >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
        >>> obs.shape
        (8, 8, 3)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ) -> None:
        check_obstruction(wrapper_name(self), obstructed_pixels_ratio, obstruction_width)
        super().__init__(env)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width
        self.is_noise_grayscale = is_noise_grayscale

    def _noisy(self, key: Any, frames: Any) -> tuple[Any, Any]:
        pixels = math.prod(frames.shape[-3:-1])
        count = (*frames.shape[:-3], int(pixels * self.obstruction_centers_ratio))
        key, centers = draw_centers(key, pixels, count)
        key, noise = draw_noise(key, tuple(frames.shape), gray=self.is_noise_grayscale)
        return key, obstruct(frames, noise, centers, width=int(self.obstruction_width))
