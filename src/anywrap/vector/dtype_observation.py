"""DtypeObservation for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import dtype_space
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.dtype_observation import cast

__all__ = ["DtypeObservation"]

_NAME = "anywrap.vector.DtypeObservation"


class DtypeObservation(VectorObservationMap):
    """Casts each sub-env's observation to ``dtype``.

    Drop-in for :class:`gymnasium.wrappers.vector.DtypeObservation`; see
    :class:`anywrap.DtypeObservation`. One transform call per batch; in
    SAME_STEP mode ``info["final_obs"]`` is cast too.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.DtypeObservation(envs, np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        gym.utils.RecordConstructorArgs.__init__(self, dtype=dtype)
        check_env_kind(self, env)
        space = dtype_space(_NAME, env.single_observation_space, dtype)
        VectorWrapper.__init__(self, env)
        self.dtype = dtype
        self.single_observation_space = space
        self.observation_space = batch_space(space, self.num_envs)
        self._set_map(_NAME, partial(cast, dtype=np.dtype(space.dtype).name), None)
