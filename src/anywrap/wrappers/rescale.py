"""RescaleAction and RescaleObservation for a single env."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from anywrap import xp as axp
from anywrap.shell.actions import ActionBounds, observing_reset
from anywrap.shell.arrays import RescalesBox
from anywrap.shell.base import Shell
from anywrap.transforms.rescale import affine, affine_inverse

__all__ = ["RescaleAction", "RescaleObservation"]


class RescaleAction(RescalesBox, gym.ActionWrapper, Shell):
    """Affinely rescales a Box action space to ``[min_action, max_action]``, in any library.

    The agent acts in ``[min_action, max_action]``; the env receives

    .. math:: a_{env} = (a - c) / g

    with the gradient ``g`` and intercept ``c`` that map the env's Box onto
    the new bounds (see :mod:`anywrap.transforms.rescale`), computed as
    Gymnasium computes them, so that on NumPy the env gets the same bits.
    Drop-in for :class:`gymnasium.wrappers.RescaleAction`: same arguments,
    action space and errors. The result takes NumPy's promotion of the
    action's dtype with the space's (a float64 action stays float64, as in
    Gymnasium); an action of the wrong shape, library or device is refused
    with a clear error.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.RescaleAction(gym.make("Pendulum-v1"), min_action=-1.0, max_action=1.0)
        >>> env.action_space
        Box(-1.0, 1.0, (1,), float32)
        >>> env.action(np.array([0.5], dtype=np.float32))
        array([1.], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, min_action: Any, max_action: Any) -> None:
        """Wrap ``env`` (a Box action space); ``min_action`` / ``max_action``: numbers or arrays."""
        box = self._rescale(env.action_space, min_action, max_action, "action")
        gym.ActionWrapper.__init__(self, env)
        self.action_space = box
        self._bounds = ActionBounds(self, box)
        self._map = axp.Compiled(affine_inverse, 0)

    reset = observing_reset

    def action(self, action: Any) -> Any:
        """The action mapped back onto the env's bounds."""
        action, *_ = self._bounds.check(action)
        return self._map(action, *self._consts_for(action))


class RescaleObservation(RescalesBox, gym.ObservationWrapper, Shell):
    """Affinely rescales a Box observation space to ``[min_obs, max_obs]``, in the data's library.

    .. math:: o' = g \\, o + c

    Drop-in for :class:`gymnasium.wrappers.RescaleObservation`: the same
    coefficients (bit for bit on NumPy), space and errors. An infinite bound
    of the env's Box must be given as the same infinity. On JAX the map is one
    compiled call.

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
        box = self._rescale(env.observation_space, min_obs, max_obs, "obs")
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = box
        self._shape = tuple(box.shape)
        self._map = axp.Compiled(affine, 0)

    def observation(self, observation: Any) -> Any:
        """The observation rescaled."""
        shape = tuple(getattr(observation, "shape", ()))
        if shape != self._shape:
            raise ValueError(
                f"anywrap.RescaleObservation: expected an observation of shape {self._shape}, "
                f"got {axp.describe(observation)}"
            )
        return self._map(observation, *self._consts_for(observation))
