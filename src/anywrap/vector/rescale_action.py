"""RescaleAction for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorActionWrapper, VectorEnv
from gymnasium.vector.utils import batch_space

from anywrap.shell.actions import ActionBounds
from anywrap.shell.arrays import rescaled_box
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorActionMap
from anywrap.transforms.rescale import affine_inverse

__all__ = ["RescaleAction"]

_NAME = "anywrap.vector.RescaleAction"


class RescaleAction(VectorActionMap):
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
        gym.utils.RecordConstructorArgs.__init__(self, min_action=min_action, max_action=max_action)
        check_env_kind(self, env)
        single = env.single_action_space
        box, gradient, intercept = rescaled_box(_NAME, single, min_action, max_action, "action")
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = box
        self.action_space = batch_space(box, self.num_envs)
        self._bounds = ActionBounds(self, box, (self.num_envs,))
        fn = partial(affine_inverse, dtype=np.dtype(single.dtype).name)
        self._set_map(_NAME, fn, None, gradient, intercept)
