"""ReshapeObservation for functional envs: every Box observation in a new shape."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from anywrap.shell.arrays import reshape_space
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.reshape_observation import reshape_observation

from .core import FunctionalEnv, ObservationMap, batch_ndim

__all__ = ["ReshapeObservation"]


class ReshapeObservation(ObservationMap):
    """Reshape every Box observation to ``shape``, as :class:`anywrap.ReshapeObservation`.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ReshapeObservation(env, (3, 1))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3, 1), (2, 3, 1))
    """

    def __init__(self, env: FunctionalEnv, shape: tuple[int, ...]) -> None:
        super().__init__(env)
        self._space = reshape_space(wrapper_name(self), env.observation_space, shape)
        self.shape = shape

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        shape = tuple(self._space.shape or ())
        return reshape_observation(jnp.asarray(obs), shape, batch_ndim(self.env))
