"""RescaleObservation for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.rescale import affine

__all__ = ["RescaleObservation"]


class RescaleObservation(VectorObservationMap):
    """Affinely rescales each sub-env's Box observation to ``[min_obs, max_obs]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleObservation`; see
    :class:`anywrap.RescaleObservation`. The result takes the Box's dtype, as
    in Gymnasium.

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
        """Wrap the vector env ``env``; the bounds as :class:`anywrap.RescaleObservation`'s."""
        name, batch = self._start(env, min_obs=min_obs, max_obs=max_obs)
        single = env.single_observation_space
        box, gradient, intercept = rescaled_box(name, single, min_obs, max_obs, "obs")
        self._wrap(env, box)
        # Gymnasium's vector wrapper gives the Box's dtype
        fn = partial(affine, dtype=np.dtype(box.dtype).name)
        self._set_map(name, fn, box_check(name, single, *batch), gradient, intercept)
