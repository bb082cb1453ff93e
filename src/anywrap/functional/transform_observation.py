"""TransformObservation for functional envs: a pure function of every observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, wrapper_name

from .core import FunctionalEnv, ObservationMap

__all__ = ["TransformObservation"]


class TransformObservation(ObservationMap):
    """Apply a pure function ``func`` to every observation.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformObservation(bare, lambda o: jnp.clip(o, -0.5, 0.5))
        >>> np.asarray(bare.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.88 ,  0.475, -0.559],
               [-0.842, -0.54 , -0.276]], dtype=float32)
        >>> np.asarray(env.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.5  ,  0.475, -0.5  ],
               [-0.5  , -0.5  , -0.276]], dtype=float32)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None = None,
    ) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)
        self._space = observation_space

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self.env.observation_space if self._space is None else self._space

    def _map(self, obs: Any) -> Any:
        return self.func(obs)
