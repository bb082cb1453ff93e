"""The functional wrappers that draw from a key in their state: image noise, sticky actions."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp

import anywrap.backends.jax  # noqa: F401  (registers the JAX key's draws)
from anywrap.shell.checks import wrapper_name
from anywrap.shell.noise import (
    check_obstruction,
    check_white_noise,
    draw_centers,
    draw_noise,
    draw_uniform,
)
from anywrap.shell.sticky_action import check_sticky, sample_action
from anywrap.transforms.noise import obstruct, white_noise
from anywrap.transforms.sticky_action import StickyKeyed, StickyState, init_sticky, sticky_step
from anywrap.tree import tree_map
from anywrap.xp import resolve_dtype

from .core import FunctionalEnv, Step, Wrapper, batch_shape, checked_action, same_step, wrapper_key

__all__ = ["AddWhiteNoise", "NoiseState", "ObstructView", "StickyAction", "StickyActionState"]


class NoiseState(NamedTuple):
    inner: Any
    key: jax.Array  # raw key data (two uint32 words), one key for the whole batch


class NoiseMap(Wrapper):
    """Noise on image observations and ``info["final_obs"]``: ``_noisy(key, frames)``."""

    state_type = NoiseState
    global_fields = ("key",)
    _noisy: Callable[[Any, Any], tuple[Any, Any]]

    def __init__(self, env: FunctionalEnv, is_noise_grayscale: bool) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, gym.spaces.Box) or len(space.shape) != 3:
            raise TypeError(
                f"{wrapper_name(self)}: expected a Box observation space of images (H, W, C), "
                f"got {space}"
            )
        self.is_noise_grayscale = is_noise_grayscale

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, mine = wrapper_key(key)
        obs, inner = self.env.reset(key)
        mine, obs = self._noisy(mine, obs)
        return obs, NoiseState(inner, mine)

    def step(self, state: NoiseState, action: Any) -> Step:
        s = self.env.step(state.inner, action)
        key, obs = self._noisy(state.key, s.obs)
        if "final_obs" in s.info:
            key, final = self._noisy(key, s.info["final_obs"])
            s = s._replace(info={**s.info, "final_obs": final})
        return s._replace(obs=obs, state=NoiseState(s.state, key))


class AddWhiteNoise(NoiseMap):
    """:class:`anywrap.AddWhiteNoise` on the image observations (there is no ``render()``),
    drawing from a key split off ``reset``'s.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> space = gym.spaces.Box(0, 255, (8, 8, 3), "uint8")
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0])
        >>> black = F.TransformObservation(env, lambda o: jnp.zeros((8, 8, 3), jnp.uint8), space)
        >>> env = F.AddWhiteNoise(black, probability_of_noise_per_pixel=0.5)
        >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
        >>> obs.shape, 0 < int((obs.max(-1) > 0).sum()) < 64
        ((8, 8, 3), True)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        probability_of_noise_per_pixel: float,
        is_noise_grayscale: bool = False,
    ) -> None:
        _, gray = check_white_noise(
            wrapper_name(self), probability_of_noise_per_pixel, is_noise_grayscale
        )
        super().__init__(env, gray)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel

    def _noisy(self, key: Any, frames: Any) -> tuple[Any, Any]:
        key, noise = draw_noise(key, tuple(frames.shape), gray=self.is_noise_grayscale)
        key, u = draw_uniform(key, tuple(frames.shape[:-1]))
        return key, white_noise(frames, noise, u, p=float(self.probability_of_noise_per_pixel))


class ObstructView(NoiseMap):
    """:class:`anywrap.ObstructView` on the image observations (there is no ``render()``),
    drawing from a key split off ``reset``'s.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> space = gym.spaces.Box(0, 255, (8, 8, 3), "uint8")
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0])
        >>> black = F.TransformObservation(env, lambda o: jnp.zeros((8, 8, 3), jnp.uint8), space)
        >>> env = F.ObstructView(black, obstructed_pixels_ratio=0.3, obstruction_width=2)
        >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
        >>> obs.shape, 0 < int((obs.max(-1) > 0).sum()) < 64
        ((8, 8, 3), True)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ) -> None:
        gray = check_obstruction(
            wrapper_name(self), obstructed_pixels_ratio, obstruction_width, is_noise_grayscale
        )
        super().__init__(env, gray)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width

    def _noisy(self, key: Any, frames: Any) -> tuple[Any, Any]:
        pixels = math.prod(frames.shape[-3:-1])
        count = (*frames.shape[:-3], int(pixels * self.obstruction_centers_ratio))
        key, centers = draw_centers(key, pixels, count)
        key, noise = draw_noise(key, tuple(frames.shape), gray=self.is_noise_grayscale)
        return key, obstruct(frames, noise, centers, width=int(self.obstruction_width))


class StickyActionState(NamedTuple):
    inner: Any
    sticky: StickyState
    key: jax.Array  # raw threefry2x32 key data


class StickyAction(Wrapper):
    """With probability ``repeat_action_probability`` the env gets the previous action again
    for ``repeat_action_duration`` steps, as :class:`anywrap.StickyAction`, from a key split
    off ``reset``'s (the first env's); over SAME_STEP an env forgets it when its episode ends.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=1000)
        >>> env = F.StickyAction(env, repeat_action_probability=0.25)
        >>> _, state = env.reset(jax.random.key(0))
        >>> state = env.step(state, jnp.zeros((1000, 1))).state
        >>> state = env.step(state, jnp.ones((1000, 1))).state
        >>> round(float((state.sticky.last == 0).mean()), 3)  # a quarter got the first again
        0.248
    """

    state_type = StickyActionState
    per_env_fields = ("sticky", "key")

    def __init__(
        self,
        env: FunctionalEnv,
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self._params = check_sticky(name, repeat_action_probability, repeat_action_duration)
        self.repeat_action_probability = self._params.p
        self.repeat_action_duration = repeat_action_duration
        self._sample = sample_action(name, env.action_space, ())

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, mine = wrapper_key(key)
        obs, inner = self.env.reset(key)
        batch = batch_shape(self.env, obs)
        sample = tree_map(
            lambda a: jnp.zeros(batch + a.shape, dtype=resolve_dtype(jnp, a.dtype.name)),
            self._sample,
        )
        return obs, StickyActionState(inner, init_sticky(sample, batch_shape=batch, xp=jnp), mine)

    def step(self, state: StickyActionState, action: Any) -> Step:
        (s, key), action = sticky_step(
            StickyKeyed(state.sticky, state.key),
            None,  # the draws come from the key in the state
            tree_map(jnp.asarray, checked_action(self, action)),
            params=self._params,
            autoreset="same_step" if same_step(self.env) else "disabled",
        )
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        s = s._replace(prev_terminated=terminated, prev_truncated=truncated)
        return Step(obs, StickyActionState(inner, s, key), reward, terminated, truncated, info)
