"""FlattenObservation for functional envs: every observation as one flat vector."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax.numpy as jnp

from anywrap.shell.checks import wrapper_name
from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan
from anywrap.tree import tree_map

from .core import FunctionalEnv, ObservationMap, batch_ndim

__all__ = ["FlattenObservation"]


class FlattenObservation(ObservationMap):
    """Flatten every observation, as :class:`anywrap.FlattenObservation` does.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.FlattenObservation(F.ReshapeObservation(env, (3, 1)))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3,), (2, 3))
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        self._plan = flatten_plan(env.observation_space, wrapper_name(self))
        self._space = gym.spaces.utils.flatten_space(env.observation_space)

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return flatten_observation(tree_map(jnp.asarray, obs), self._plan, batch_ndim(self.env))
