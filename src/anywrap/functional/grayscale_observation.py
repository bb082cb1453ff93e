"""GrayscaleObservation for functional envs: Gymnasium's grayscale of RGB frames, jittable."""

from __future__ import annotations

from typing import Any

from anywrap.shell.checks import wrapper_name
from anywrap.shell.images import grayscale_map

from .core import FunctionalEnv, ObservationMap

__all__ = ["GrayscaleObservation"]


class GrayscaleObservation(ObservationMap):
    """Gymnasium's grayscale of uint8 RGB observations, as
    :class:`anywrap.GrayscaleObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym
        >>> from gymnasium.vector import AutoresetMode
        >>> from anywrap import functional as F
        >>> class Pixels:  # one 4x6 RGB frame, its colour the step count times 40
        ...     observation_space = gym.spaces.Box(0, 255, (4, 6, 3), "uint8")
        ...     action_space = gym.spaces.Discrete(2)
        ...     num_envs, autoreset_mode = None, AutoresetMode.DISABLED
        ...     def frame(self, t):
        ...         rgb = jnp.stack([t * 40, t * 20, jnp.full_like(t, 50)]).astype(jnp.uint8)
        ...         return jnp.broadcast_to(rgb, (4, 6, 3))
        ...     def reset(self, key):
        ...         t = jnp.ones((), jnp.int32)
        ...         return self.frame(t), t
        ...     def step(self, t, action):
        ...         no = jnp.zeros((), bool)
        ...         return F.Step(self.frame(t + 1), t + 1, jnp.zeros(()), no, no, {})
        >>> env = F.GrayscaleObservation(Pixels())
        >>> obs, _ = env.reset(jax.random.key(0))
        >>> obs.shape, int(obs[0, 0])  # 0.2125 * 40 + 0.7154 * 20 + 0.0721 * 50 = 26.4
        ((4, 6), 26)
    """

    def __init__(self, env: FunctionalEnv, keep_dim: bool = False) -> None:
        super().__init__(env)
        self._image = grayscale_map(wrapper_name(self), env.observation_space, keep_dim)
        self.keep_dim = keep_dim

    observation_space = property(lambda self: self._image.space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return self._image.fn(obs)
