"""ClipAction for a single env, and the space function both shells use."""

import gymnasium as gym
import numpy as np

from anywrap.shell.actions import ActionBounds
from anywrap.shell.maps import ActionMap
from anywrap.transforms.actions import clip_action


def clip_spaces(name: str, space: gym.Space) -> tuple[gym.spaces.Box, gym.spaces.Box]:
    """``space``, which must be a Box, and the unbounded Box of its shape and dtype."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{name}: expected a Box action space, got {space}")
    return space, gym.spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype)


class ClipAction(ActionMap):
    """Clips each action to the env's Box bounds, in the action's own library:
    :class:`gymnasium.wrappers.ClipAction`; the action space is the unbounded Box.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.ClipAction(gym.make("MountainCarContinuous-v0"))
        >>> env.action_space, env.action(np.array([5.0]))
        (Box(-inf, inf, (1,), float32), array([1.]))

    Change logs: v0.1.0 - initially added.
    """

    _state = None  # not a checkpoint layer (as in 0.1)

    def __init__(self, env: gym.Env) -> None:
        """Wrap ``env``, whose action space must be a Box."""
        name, _ = self._start(env)
        space, unbounded = clip_spaces(name, env.action_space)
        self._wrap(env, action_space=unbounded)
        self._bounds = ActionBounds(self, space, ())
        self._set_map(name, clip_action, None, space.low, space.high)
