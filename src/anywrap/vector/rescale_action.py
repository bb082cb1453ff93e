"""RescaleAction for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.actions import ActionBounds
from anywrap.shell.arrays import rescaled_box
from anywrap.shell.maps import VectorActionMap
from anywrap.transforms.rescale import affine_inverse


class RescaleAction(VectorActionMap):
    """:class:`anywrap.RescaleAction` for a vector env; the batch sent to the env takes the
    env's action dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> anywrap.vector.RescaleAction(envs, 0.0, 1.0).actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, min_action: Any, max_action: Any) -> None:
        name, batch = self._start(env, min_action=min_action, max_action=max_action)
        single = env.single_action_space
        box, gradient, intercept = rescaled_box(name, single, min_action, max_action, "action")
        self._wrap(env, action_space=box)
        self._bounds = ActionBounds(self, box, batch)
        fn = partial(affine_inverse, dtype=np.dtype(single.dtype).name)
        self._set_map(name, fn, None, gradient, intercept)
