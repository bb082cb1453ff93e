"""DtypeObservation for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import dtype_space
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.dtype_observation import cast

__all__ = ["DtypeObservation"]


class DtypeObservation(VectorObservationMap):
    """Casts each sub-env's observation to ``dtype``.

    Drop-in for :class:`gymnasium.wrappers.vector.DtypeObservation`; see
    :class:`anywrap.DtypeObservation`. ``info["final_obs"]`` is cast too.

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
        """Wrap the vector env ``env``; ``dtype`` as :class:`anywrap.DtypeObservation`'s."""
        name, _ = self._start(env, dtype=dtype)
        space = dtype_space(name, env.single_observation_space, dtype)
        self._wrap(env, space)
        self.dtype = dtype
        self._set_map(name, partial(cast, dtype=np.dtype(space.dtype).name), None)
