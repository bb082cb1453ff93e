"""RescaleObservation for a single env, and the constructor both shells share."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.rescale import affine
from anywrap.wrappers._shared import single_space, start, wrap

__all__ = ["RescaleObservation"]


def init_rescale_observation(self: Any, env: Any, min_obs: Any, max_obs: Any) -> None:
    """Wrap ``env`` (a Box observation space); ``min_obs`` / ``max_obs``: numbers or arrays."""
    name, batch = start(self, env, min_obs=min_obs, max_obs=max_obs)
    single = single_space(self, env)
    box, gradient, intercept = rescaled_box(name, single, min_obs, max_obs, "obs")
    wrap(self, env, box)
    # Gymnasium's vector wrapper gives the Box's dtype
    fn = partial(affine, dtype=np.dtype(box.dtype).name) if batch else affine
    self._set_map(name, fn, box_check(name, single, *batch), gradient, intercept)


class RescaleObservation(ObservationMap):
    """Affinely rescales a Box observation space to ``[min_obs, max_obs]``, in the data's library.

    .. math:: o' = g \\, o + c

    with Gymnasium's gradient ``g`` and intercept ``c`` (bit for bit on NumPy).
    Drop-in for :class:`gymnasium.wrappers.RescaleObservation`: same space and
    errors. An infinite bound of the env's Box must be given as the same
    infinity; an observation of another shape is refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.RescaleObservation(gym.make("Pendulum-v1"), -1.0, 1.0)
        >>> env.observation_space
        Box(-1.0, 1.0, (3,), float32)
        >>> obs, _ = env.reset(seed=0)
        >>> bool(((obs >= -1) & (obs <= 1)).all()), obs.dtype
        (True, dtype('float32'))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_rescale_observation
