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
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> rgb = jnp.broadcast_to(jnp.array([40, 20, 50], jnp.uint8), (4, 6, 3))
        >>> pixels = F.TransformObservation(  # every observation that one 4x6 frame
        ...     F.from_gymnax(gymnax.make("Pendulum-v1")[0]),
        ...     lambda obs: rgb,
        ...     gym.spaces.Box(0, 255, (4, 6, 3), "uint8"),
        ... )
        >>> obs, _ = F.GrayscaleObservation(pixels).reset(jax.random.key(0))
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
