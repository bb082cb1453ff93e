"""DtypeObservation for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import dtype_space
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.dtype_observation import cast


class DtypeObservation(VectorObservationMap):
    """:class:`anywrap.DtypeObservation` for a vector env (``info["final_obs"]`` cast too).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DtypeObservation(gym.make_vec("CartPole-v1", 2), np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, dtype: Any) -> None:
        name, _ = self._start(env, dtype=dtype)
        space = dtype_space(name, env.single_observation_space, dtype)
        self._wrap(env, space)
        self.dtype = dtype
        self._set_map(name, partial(cast, dtype=np.dtype(space.dtype).name), None)
