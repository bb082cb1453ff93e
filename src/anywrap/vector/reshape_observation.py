"""ReshapeObservation for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import box_check, reshape_space
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.reshape_observation import reshape_observation

__all__ = ["ReshapeObservation"]

_NAME = "anywrap.vector.ReshapeObservation"


def _reshape_batch(obs: Any, shape: tuple[int, ...], dtype: str) -> Any:
    return cast(reshape_observation(obs, shape, batch_ndim=1), dtype)


class ReshapeObservation(VectorObservationMap):
    """Reshapes each sub-env's Box observation to ``shape``.

    Drop-in for :class:`gymnasium.wrappers.vector.ReshapeObservation`; see
    :class:`anywrap.ReshapeObservation`. A batch of another shape is refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.ReshapeObservation(envs, (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, shape: tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box single observation space); ``shape``: a tuple of ints."""
        gym.utils.RecordConstructorArgs.__init__(self, shape=shape)
        check_env_kind(self, env)
        space = reshape_space(_NAME, env.single_observation_space, shape)
        VectorWrapper.__init__(self, env)
        self.shape = shape
        self.single_observation_space = space
        self.observation_space = batch_space(space, self.num_envs)
        check = box_check(_NAME, env.single_observation_space, self.num_envs)
        new_shape, dtype = tuple(space.shape), np.dtype(space.dtype).name
        self._set_map(_NAME, partial(_reshape_batch, shape=new_shape, dtype=dtype), check)
