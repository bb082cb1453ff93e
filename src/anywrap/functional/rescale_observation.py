"""RescaleObservation for functional envs: a Box observation mapped affinely onto new bounds."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from anywrap.shell.arrays import rescaled_box
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.rescale import affine

from .core import FunctionalEnv, ObservationMap, constant

__all__ = ["RescaleObservation"]


class RescaleObservation(ObservationMap):
    """Affinely rescale a Box observation to ``[min_obs, max_obs]``, as
    :class:`anywrap.RescaleObservation` does.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.RescaleObservation(env, -1.0, 1.0)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.observation_space, bool((abs(obs) <= 1).all())
        (Box(-1.0, 1.0, (3,), float32), True)
    """

    def __init__(self, env: FunctionalEnv, min_obs: Any, max_obs: Any) -> None:
        super().__init__(env)
        self.min_obs, self.max_obs = min_obs, max_obs
        self._space, self._g, self._c = rescaled_box(
            wrapper_name(self), env.observation_space, min_obs, max_obs, "obs"
        )

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return affine(jnp.asarray(obs), constant(self._g), constant(self._c))
