"""DtypeObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.arrays import dtype_space
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.dtype_observation import cast

__all__ = ["DtypeObservation"]


class DtypeObservation(ObservationMap):
    """Casts every observation to ``dtype``, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.DtypeObservation`: same argument,
    spaces (a Discrete space becomes a 0-d Box, a MultiBinary one a Box) and
    numbers. Without float64 (JAX without x64) a float64 cast gives float32.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.DtypeObservation(gym.make("CartPole-v1"), np.float64)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.dtype, env.observation_space.dtype
        (dtype('float64'), dtype('float64'))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        name, _ = self._start(env, dtype=dtype)
        space = dtype_space(name, env.observation_space, dtype)
        self._wrap(env, space)
        self.dtype = dtype
        self._set_map(name, partial(cast, dtype=np.dtype(space.dtype).name), None)
