"""ReshapeObservation for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import box_check, reshape_space
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.reshape_observation import reshape_observation


def _reshape_batch(obs: Any, shape: tuple[int, ...], dtype: str) -> Any:
    return cast(reshape_observation(obs, shape, batch_ndim=1), dtype)


class ReshapeObservation(VectorObservationMap):
    """:class:`anywrap.ReshapeObservation` for a vector env; the batch takes the space's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.ReshapeObservation(gym.make_vec("CartPole-v1", 3), (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, shape: tuple[int, ...]) -> None:
        name, batch = self._start(env, shape=shape)
        single = env.single_observation_space
        space = reshape_space(name, single, shape)
        self._wrap(env, space)
        self.shape = shape
        fn = partial(_reshape_batch, shape=space.shape, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, box_check(name, single, *batch))
