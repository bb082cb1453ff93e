"""ClipAction for a single env, and the constructor both shells share."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.actions import ActionBounds
from anywrap.shell.maps import ActionMap
from anywrap.transforms.actions import clip_action
from anywrap.transforms.dtype_observation import cast
from anywrap.wrappers._shared import single_space, start, wrap

__all__ = ["ClipAction"]


def _clip_cast(actions: Any, low: Any, high: Any, dtype: str) -> Any:
    return cast(clip_action(actions, low, high), dtype)


def init_clip_action(self: Any, env: Any) -> None:
    """Wrap ``env``, whose action space must be a Box."""
    name, batch = start(self, env)
    space = single_space(self, env, "action")
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{name}: expected a Box action space, got {space}")
    unbounded = gym.spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype)
    wrap(self, env, action_space=unbounded)
    self._bounds = ActionBounds(self, space, batch)
    # Gymnasium's vector wrapper casts to the action space's dtype
    fn = partial(_clip_cast, dtype=np.dtype(space.dtype).name) if batch else clip_action
    self._set_map(name, fn, None, space.low, space.high)


class ClipAction(ActionMap):
    """Clips each action to the env's Box bounds, in the action's own library.

    .. math:: a' = \\min(\\max(a, \\text{low}), \\text{high})

    Drop-in for :class:`gymnasium.wrappers.ClipAction`: the action space is the
    unbounded Box of the same shape and dtype. An action of the wrong shape,
    library or device is refused (Gymnasium would return NumPy, or broadcast).

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.ClipAction(gym.make("MountainCarContinuous-v0"))
        >>> env.action_space, env.unwrapped.action_space
        (Box(-inf, inf, (1,), float32), Box(-1.0, 1.0, (1,), float32))
        >>> env.action(np.array([5.0])), env.action(np.array([-0.25]))
        (array([1.]), array([-0.25]))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_clip_action
    _state = None  # not a checkpoint layer (as in 0.1)
