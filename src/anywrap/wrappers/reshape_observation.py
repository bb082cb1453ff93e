"""ReshapeObservation for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.arrays import box_check, reshape_space
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.reshape_observation import reshape_observation


def _reshape_batch(obs: Any, shape: tuple[int, ...], dtype: str) -> Any:
    return cast(reshape_observation(obs, shape, batch_ndim=1), dtype)


class ReshapeObservation(ObservationMap):
    """Reshapes every Box observation to ``shape``, in the observation's library (a view
    where the library allows one): :class:`gymnasium.wrappers.ReshapeObservation`.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2)).reset(seed=0)[0].shape
        (2, 2)
    """

    def __init__(self, env: Any, shape: tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box observation space); ``shape``: a tuple of ints (one may be -1)."""
        name, batch = self._start(env, shape=shape)
        single = self._single_space(env)
        space = reshape_space(name, single, shape)
        self._wrap(env, space)
        self.shape = shape
        fn = partial(reshape_observation, shape=space.shape)
        if batch:  # Gymnasium's vector wrapper gives the space's dtype
            fn = partial(_reshape_batch, shape=space.shape, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, box_check(name, single, *batch))
