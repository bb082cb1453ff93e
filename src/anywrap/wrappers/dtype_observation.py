"""DtypeObservation for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.arrays import dtype_space
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.dtype_observation import cast


class DtypeObservation(ObservationMap):
    """Casts every observation to ``dtype``: :class:`gymnasium.wrappers.DtypeObservation`
    (where there is no float64, as in JAX without x64, a float64 cast gives float32).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> anywrap.DtypeObservation(gym.make("CartPole-v1"), np.float64).reset(seed=0)[0].dtype
        dtype('float64')
    """

    def __init__(self, env: Any, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        name, _ = self._start(env, dtype=dtype)
        space = dtype_space(name, self._single_space(env), dtype)
        self._wrap(env, space)
        self.dtype = dtype
        self._set_map(name, partial(cast, dtype=np.dtype(space.dtype).name), None)
