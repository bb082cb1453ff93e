"""ClipAction for vector envs."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.actions import ActionBounds
from anywrap.shell.maps import VectorActionMap
from anywrap.transforms.actions import clip_action
from anywrap.transforms.dtype_observation import cast
from anywrap.wrappers.clip_action import clip_spaces


def _clip_cast(actions: Any, low: Any, high: Any, dtype: str) -> Any:
    return cast(clip_action(actions, low, high), dtype)


class ClipAction(VectorActionMap):
    """:class:`anywrap.ClipAction` for a vector env; the clipped batch takes the action
    space's dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3, vectorization_mode="sync")
        >>> anywrap.vector.ClipAction(envs).actions(np.array([[5.0], [-0.25], [-3.0]]))
        array([[ 1.  ],
               [-0.25],
               [-1.  ]], dtype=float32)

    Change logs: v0.1.0 - initially added.
    """

    _state = None  # not a checkpoint layer (as in 0.1)

    def __init__(self, env: VectorEnv) -> None:
        name, batch = self._start(env)
        space, unbounded = clip_spaces(name, env.single_action_space)
        self._wrap(env, action_space=unbounded)
        self._bounds = ActionBounds(self, space, batch)
        # Gymnasium's vector wrapper casts to the action space's dtype
        fn = partial(_clip_cast, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, None, space.low, space.high)
