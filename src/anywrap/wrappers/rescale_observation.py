"""RescaleObservation for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.rescale import affine


class RescaleObservation(ObservationMap):
    """Affinely rescales a Box observation space to ``[min_obs, max_obs]``, in the data's
    library: :class:`gymnasium.wrappers.RescaleObservation`, bit for bit on NumPy.

    .. math:: o' = g \\, o + c

    with Gymnasium's gradient ``g`` and intercept ``c``. An infinite bound of the env's Box
    must be given as the same infinity.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.RescaleObservation(gym.make("Pendulum-v1"), -1.0, 1.0).observation_space
        Box(-1.0, 1.0, (3,), float32)
    """

    def __init__(self, env: Any, min_obs: Any, max_obs: Any) -> None:
        """Wrap ``env`` (a Box observation space); ``min_obs`` / ``max_obs``: numbers or arrays."""
        name, batch = self._start(env, min_obs=min_obs, max_obs=max_obs)
        single = self._single_space(env)
        box, gradient, intercept = rescaled_box(name, single, min_obs, max_obs, "obs")
        self._wrap(env, box)
        # Gymnasium's vector wrapper casts to the Box's dtype
        fn = partial(affine, dtype=np.dtype(box.dtype).name if batch else None)
        self._set_map(name, fn, box_check(name, single, *batch), gradient, intercept)
