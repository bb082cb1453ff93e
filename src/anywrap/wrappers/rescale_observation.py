"""RescaleObservation for a single env."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from anywrap.shell.arrays import box_check, rescaled_box
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.rescale import affine

__all__ = ["RescaleObservation"]

_NAME = "anywrap.RescaleObservation"


class RescaleObservation(ObservationMap):
    """Affinely rescales a Box observation space to ``[min_obs, max_obs]``, in the data's library.

    .. math:: o' = g \\, o + c

    with the gradient ``g`` and intercept ``c`` that map the env's Box onto
    the new bounds (see :mod:`anywrap.transforms.rescale`). Drop-in for
    :class:`gymnasium.wrappers.RescaleObservation`: the same coefficients (bit
    for bit on NumPy), space and errors. An infinite bound of the env's Box
    must be given as the same infinity. An observation of another shape is
    refused (it would broadcast against the coefficients).

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

    def __init__(self, env: gym.Env, min_obs: Any, max_obs: Any) -> None:
        """Wrap ``env`` (a Box observation space); ``min_obs`` / ``max_obs``: numbers or arrays."""
        gym.utils.RecordConstructorArgs.__init__(self, min_obs=min_obs, max_obs=max_obs)
        check_env_kind(self, env)
        box, gradient, intercept = rescaled_box(
            _NAME, env.observation_space, min_obs, max_obs, "obs"
        )
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = box
        check = box_check(_NAME, env.observation_space)
        self._set_map(_NAME, affine, check, gradient, intercept)
