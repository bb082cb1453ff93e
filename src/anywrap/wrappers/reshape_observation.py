"""ReshapeObservation for a single env, and the constructor both shells share."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.arrays import box_check, reshape_space
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.reshape_observation import reshape_observation
from anywrap.wrappers._shared import single_space, start, wrap

__all__ = ["ReshapeObservation"]


def _reshape_batch(obs: Any, shape: tuple[int, ...], dtype: str) -> Any:
    return cast(reshape_observation(obs, shape, batch_ndim=1), dtype)


def init_reshape_observation(self: Any, env: Any, shape: tuple[int, ...]) -> None:
    """Wrap ``env`` (a Box observation space); ``shape``: a tuple of ints (one may be -1)."""
    name, batch = start(self, env, shape=shape)
    single = single_space(self, env)
    space = reshape_space(name, single, shape)
    wrap(self, env, space)
    self.shape = shape
    fn = partial(reshape_observation, shape=space.shape)
    if batch:  # Gymnasium's vector wrapper gives the space's dtype
        fn = partial(_reshape_batch, shape=space.shape, dtype=np.dtype(space.dtype).name)
    self._set_map(name, fn, box_check(name, single, *batch))


class ReshapeObservation(ObservationMap):
    """Reshapes every Box observation to ``shape``, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.ReshapeObservation` (same argument,
    space and values). The reshape is a view wherever the library allows one;
    an observation of another shape than the env's space is refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2))
        >>> env.observation_space.shape, env.reset(seed=0)[0].shape
        ((2, 2), (2, 2))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_reshape_observation
