"""ClipAction for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorActionWrapper, VectorEnv
from gymnasium.vector.utils import batch_space

from anywrap.shell.actions import ActionBounds
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorActionMap
from anywrap.transforms.actions import clip_action
from anywrap.transforms.dtype_observation import cast

__all__ = ["ClipAction"]


def _clip_cast(actions: Any, low: Any, high: Any, dtype: str) -> Any:
    return cast(clip_action(actions, low, high), dtype)


class ClipAction(VectorActionMap):
    """Clips each sub-env's action to the Box bounds, in the actions' own library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipAction`, whose output
    takes the action space's dtype (a Gymnasium quirk kept for parity). A batch of
    actions of the wrong shape, library or device is refused with a clear
    error; a tensor batch is clipped on its device.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.ClipAction(envs)
        >>> envs.single_action_space, envs.env.single_action_space
        (Box(-inf, inf, (1,), float32), Box(-1.0, 1.0, (1,), float32))
        >>> actions = np.array([[5.0], [-0.25], [-3.0]])
        >>> envs.actions(actions)
        array([[ 1.  ],
               [-0.25],
               [-1.  ]], dtype=float32)

        MountainCar charges ``0.1 * a**2`` for the action it receives:

        >>> _ = envs.reset(seed=0)
        >>> envs.step(actions)[1]
        array([-0.1    , -0.00625, -0.1    ])
    """

    def __init__(self, env: VectorEnv) -> None:
        """Wrap ``env``, whose single action space must be a Box."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        single = env.single_action_space
        if not isinstance(single, gym.spaces.Box):
            raise TypeError(f"anywrap.vector.ClipAction: expected a Box action space, got {single}")
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = gym.spaces.Box(
            -np.inf, np.inf, shape=single.shape, dtype=single.dtype
        )
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._bounds = ActionBounds(self, single, (self.num_envs,))
        clip = partial(_clip_cast, dtype=np.dtype(single.dtype).name)  # Gymnasium casts
        self._set_map("anywrap.vector.ClipAction", clip, None, single.low, single.high)

    _state = None  # not a checkpoint layer (as in 0.1)
