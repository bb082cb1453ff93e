"""ResizeObservation for functional envs: image observations resized, jittable."""

from __future__ import annotations

from typing import Any

from anywrap.shell.checks import wrapper_name
from anywrap.shell.images import resize_map

from .core import FunctionalEnv, ObservationMap

__all__ = ["ResizeObservation"]


class ResizeObservation(ObservationMap):
    """Resize image observations to ``shape``, as :class:`anywrap.ResizeObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> ramp = jnp.broadcast_to(jnp.arange(0, 300, 50, dtype=jnp.uint8), (4, 6))
        >>> pixels = F.TransformObservation(  # every observation that one 4x6 gray frame
        ...     F.from_gymnax(gymnax.make("Pendulum-v1")[0]),
        ...     lambda obs: ramp,
        ...     gym.spaces.Box(0, 255, (4, 6), "uint8"),
        ... )
        >>> env = F.ResizeObservation(pixels, (2, 3))
        >>> obs, _ = env.reset(jax.random.key(0))
        >>> env.observation_space, obs.tolist()  # each pixel the mean of a 2x2 block
        (Box(0, 255, (2, 3), uint8), [[25, 125, 225], [25, 125, 225]])
    """

    def __init__(
        self, env: FunctionalEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        super().__init__(env)
        self._image = resize_map(wrapper_name(self), env.observation_space, shape, interpolation)
        self.shape, self.interpolation = self._image.space.shape[:2], interpolation

    observation_space = property(lambda self: self._image.space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return self._image.fn(obs)
