"""FlattenObservation for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation, flatten_plan

__all__ = ["FlattenObservation"]

_NAME = "anywrap.vector.FlattenObservation"


def _flatten_batch(obs: Any, plan: FlatPlan, dtype: str) -> Any:
    return cast(flatten_observation(obs, plan, batch_ndim=1), dtype)


class FlattenObservation(VectorObservationMap):
    """Flattens each sub-env's observation into one 1-D array (a batch of them).

    Drop-in for :class:`gymnasium.wrappers.vector.FlattenObservation`; see
    :class:`anywrap.FlattenObservation` for the spaces it takes. The batch
    takes the flat space's dtype, as in Gymnasium; unlike Gymnasium's, it never
    writes into the env's observation array.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("Blackjack-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.FlattenObservation(envs)
        >>> envs.reset(seed=0)[0].shape
        (3, 45)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv) -> None:
        """Wrap ``env``."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        plan = flatten_plan(env.single_observation_space, _NAME)
        VectorWrapper.__init__(self, env)
        self.single_observation_space = gym.spaces.utils.flatten_space(env.single_observation_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        dtype = np.dtype(self.single_observation_space.dtype).name
        self._set_map(_NAME, partial(_flatten_batch, plan=plan, dtype=dtype), None)

    def observations(self, observations: Any) -> Any:
        """The batch flattened."""
        try:
            return self._map(observations)
        except (KeyError, IndexError, TypeError):  # say what differs from the space
            ObservationCheck(_NAME, self.env.single_observation_space, self.num_envs)(observations)
            raise
