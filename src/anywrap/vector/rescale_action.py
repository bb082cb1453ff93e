"""RescaleAction for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorActionWrapper, VectorEnv
from gymnasium.vector.utils import batch_space

from anywrap.shell.actions import ActionBounds, observing_reset
from anywrap.shell.arrays import LibraryConstants, rescaled_box, stateless
from anywrap.shell.base import Shell
from anywrap.transforms.rescale import affine_inverse

__all__ = ["RescaleAction"]

_NAME = "anywrap.vector.RescaleAction"


class RescaleAction(Shell, VectorActionWrapper):
    """Affinely rescales each sub-env's Box action space to ``[min_action, max_action]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleAction`; see
    :class:`anywrap.RescaleAction` for the map. The batch sent to the env takes
    the env's action dtype (a Gymnasium quirk kept for parity: it writes each
    sub-env's action into an array of that dtype). A batch of the wrong
    shape, library or device is refused with a clear error.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleAction(envs, 0.0, 1.0)
        >>> envs.actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_action: Any, max_action: Any) -> None:
        """Wrap ``env`` (a Box single action space)."""
        single = env.single_action_space
        box, gradient, intercept = rescaled_box(_NAME, single, min_action, max_action, "action")
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = box
        self.action_space = batch_space(box, self.num_envs)
        self._bounds = ActionBounds(self, box, (self.num_envs,))
        self._consts = LibraryConstants(_NAME, gradient, intercept)
        self._state = ()
        dtype = np.dtype(single.dtype).name
        self._use({"rescale": stateless(partial(affine_inverse, dtype=dtype))})

    reset = observing_reset

    def actions(self, actions: Any) -> Any:
        """The batch of actions mapped back onto the env's bounds."""
        actions, *_ = self._bounds.check(actions)
        return self._run("rescale", actions, actions, *self._consts.get(actions))
