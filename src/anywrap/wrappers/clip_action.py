"""ClipAction for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.actions import ActionBounds
from anywrap.shell.maps import ActionMap
from anywrap.transforms.actions import clip_action
from anywrap.transforms.dtype_observation import cast


def _clip_cast(actions: Any, low: Any, high: Any, dtype: str) -> Any:
    return cast(clip_action(actions, low, high), dtype)


class ClipAction(ActionMap):
    """Clips each action to the env's Box bounds, in the action's own library:
    :class:`gymnasium.wrappers.ClipAction`; the action space is the unbounded Box.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.ClipAction(gym.make("MountainCarContinuous-v0"))
        >>> env.action_space, env.action(np.array([5.0]))
        (Box(-inf, inf, (1,), float32), array([1.]))
    """

    _state = None  # not a checkpoint layer (as in 0.1)

    def __init__(self, env: Any) -> None:
        """Wrap ``env``, whose action space must be a Box."""
        name, batch = self._start(env)
        space = self._single_space(env, "action")
        if not isinstance(space, gym.spaces.Box):
            raise TypeError(f"{name}: expected a Box action space, got {space}")
        unbounded = gym.spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype)
        self._wrap(env, action_space=unbounded)
        self._bounds = ActionBounds(self, space, batch)
        fn: Any = clip_action
        if batch:  # Gymnasium's vector wrapper casts to the action space's dtype
            fn = partial(_clip_cast, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, None, space.low, space.high)
