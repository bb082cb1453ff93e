"""AddWhiteNoise for functional envs: white noise on image observations, from a key in the state."""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium as gym
import jax
from gymnasium.error import InvalidProbability

import anywrap.backends.jax  # noqa: F401  (registers the JAX key's draws)
from anywrap.shell.checks import wrapper_name
from anywrap.shell.noise import draw_noise, draw_uniform
from anywrap.transforms.noise import white_noise

from .core import FunctionalEnv, Step, Wrapper, is_key_batch, split_key, with_final

__all__ = ["AddWhiteNoise", "NoiseState"]


class NoiseState(NamedTuple):
    """State of the functional noise wrappers: the inner state and the wrapper's key."""

    inner: Any
    key: jax.Array
    """Raw key data (two ``uint32`` words), one key for the whole batch."""


class NoiseMap(Wrapper):
    """A wrapper that puts noise on image observations ``(..., H, W, C)`` (and on
    ``info["final_obs"]``) with ``_noisy(key, frames) -> (key, frames)``."""

    state_type = NoiseState
    global_fields = ("key",)

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, gym.spaces.Box) or len(space.shape) != 3:
            raise TypeError(
                f"{wrapper_name(self)}: expected a Box observation space of images (H, W, C), "
                f"got {space}"
            )

    def _noisy(self, key: Any, frames: Any) -> tuple[Any, Any]:
        raise NotImplementedError

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, mine = split_key(key)
        if is_key_batch(mine):  # a batch of keys: the draws come from the first env's
            mine = mine[0]
        if jax.dtypes.issubdtype(mine.dtype, jax.dtypes.prng_key):
            mine = jax.random.key_data(mine)
        obs, inner = self.env.reset(key)
        mine, obs = self._noisy(mine, obs)
        return obs, NoiseState(inner, mine)

    def step(self, state: NoiseState, action: Any) -> Step:
        s = self.env.step(state.inner, action)
        key, obs = self._noisy(state.key, s.obs)
        box = [key]

        def final(frames: Any) -> Any:
            box[0], out = self._noisy(box[0], frames)
            return out

        info = with_final(s.info, final)
        return s._replace(obs=obs, state=NoiseState(s.state, box[0]), info=info)


class AddWhiteNoise(NoiseMap):
    """Replaces each pixel of the image observations by white noise with probability
    ``probability_of_noise_per_pixel``, jittable.

    Same arguments as :class:`anywrap.AddWhiteNoise`, which puts the noise on
    ``render()``'s frames: a functional env has no ``render()``, so here the
    observations are the frames. The key comes from ``reset(key)``, split into
    the env's and the wrapper's (one for the whole batch).

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
        >>> env = F.AddWhiteNoise(Black(), probability_of_noise_per_pixel=0.5)
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
        if not 0 <= probability_of_noise_per_pixel < 1:
            raise InvalidProbability(
                f"{wrapper_name(self)}: expected `probability_of_noise_per_pixel` in [0, 1), "
                f"got {probability_of_noise_per_pixel!r}"
            )
        super().__init__(env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = is_noise_grayscale

    def _noisy(self, key: Any, frames: Any) -> tuple[Any, Any]:
        key, noise = draw_noise(key, tuple(frames.shape), gray=self.is_noise_grayscale)
        key, u = draw_uniform(key, tuple(frames.shape[:-1]))
        return key, white_noise(frames, noise, u, p=float(self.probability_of_noise_per_pixel))
