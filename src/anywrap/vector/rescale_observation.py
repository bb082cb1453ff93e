"""RescaleObservation for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.rescale import affine

__all__ = ["RescaleObservation"]

_NAME = "anywrap.vector.RescaleObservation"


class RescaleObservation(VectorObservationMap):
    """Affinely rescales each sub-env's Box observation to ``[min_obs, max_obs]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleObservation`; see
    :class:`anywrap.RescaleObservation` for the map. One transform call per
    batch; the result takes the Box's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleObservation(envs, 0.0, 1.0)
        >>> obs, _ = envs.reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_obs: Any, max_obs: Any) -> None:
        """Wrap ``env`` (a Box single observation space)."""
        gym.utils.RecordConstructorArgs.__init__(self, min_obs=min_obs, max_obs=max_obs)
        check_env_kind(self, env)
        single = env.single_observation_space
        box, gradient, intercept = rescaled_box(_NAME, single, min_obs, max_obs, "obs")
        VectorWrapper.__init__(self, env)
        self.single_observation_space = box
        self.observation_space = batch_space(box, self.num_envs)
        check = box_check(_NAME, single, self.num_envs)
        fn = partial(affine, dtype=np.dtype(box.dtype).name)
        self._set_map(_NAME, fn, check, gradient, intercept)
