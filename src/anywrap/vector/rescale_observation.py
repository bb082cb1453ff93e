"""RescaleObservation for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.rescale import affine


class RescaleObservation(VectorObservationMap):
    """:class:`anywrap.RescaleObservation` for a vector env; the result takes the Box's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> obs, _ = anywrap.vector.RescaleObservation(envs, 0.0, 1.0).reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, min_obs: Any, max_obs: Any) -> None:
        name, batch = self._start(env, min_obs=min_obs, max_obs=max_obs)
        single = env.single_observation_space
        box, gradient, intercept = rescaled_box(name, single, min_obs, max_obs, "obs")
        self._wrap(env, box)
        fn = partial(affine, dtype=np.dtype(box.dtype).name)
        self._set_map(name, fn, box_check(name, single, *batch), gradient, intercept)
