"""ClipAction for a single env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from anywrap.shell.actions import ActionBounds
from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import ActionMap
from anywrap.transforms.actions import clip_action

__all__ = ["ClipAction"]


class ClipAction(ActionMap):
    """Clips each action to the env's Box bounds, in the action's own library.

    .. math:: a' = \\min(\\max(a, \\text{low}), \\text{high})

    Drop-in for :class:`gymnasium.wrappers.ClipAction`: the wrapper's action
    space is the unbounded Box of the same shape and dtype. Unlike Gymnasium
    (which would return NumPy, or broadcast a wrong shape silently), an action
    of the wrong shape, library or device is refused with a clear error, and a
    tensor is clipped as a tensor on its device.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.ClipAction(gym.make("MountainCarContinuous-v0"))
        >>> env.action_space, env.unwrapped.action_space
        (Box(-inf, inf, (1,), float32), Box(-1.0, 1.0, (1,), float32))
        >>> env.action(np.array([5.0])), env.action(np.array([-0.25]))
        (array([1.]), array([-0.25]))

        MountainCar charges ``0.1 * a**2`` for the action it receives: 0.1 for
        the clipped 1.0, where 5.0 would have cost 2.5.

        >>> _ = env.reset(seed=0)
        >>> _, reward, *_ = env.step(np.array([5.0]))
        >>> round(float(reward), 6)
        -0.1

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env) -> None:
        """Wrap ``env``, whose action space must be a Box."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        if not isinstance(env.action_space, gym.spaces.Box):
            raise TypeError(
                f"anywrap.ClipAction: expected a Box action space, got {env.action_space}"
            )
        gym.ActionWrapper.__init__(self, env)
        space = env.action_space
        self.action_space = gym.spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype)
        self._bounds = ActionBounds(self, space)
        self._set_map("anywrap.ClipAction", clip_action, None, space.low, space.high)

    _state = None  # not a checkpoint layer (as in 0.1)
