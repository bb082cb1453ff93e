"""RescaleAction for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import numpy as np

from anywrap.shell.actions import ActionBounds
from anywrap.shell.arrays import rescaled_box
from anywrap.shell.maps import ActionMap
from anywrap.transforms.rescale import affine_inverse


class RescaleAction(ActionMap):
    """Affinely rescales a Box action space to ``[min_action, max_action]``, in any library:
    :class:`gymnasium.wrappers.RescaleAction`, the env getting the same bits on NumPy.

    .. math:: a_{env} = (a - c) / g

    with Gymnasium's gradient ``g`` and intercept ``c``; the result takes NumPy's promotion
    of the action's dtype with the space's.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.RescaleAction(gym.make("Pendulum-v1"), min_action=-1.0, max_action=1.0)
        >>> env.action(np.array([0.5], dtype=np.float32))
        array([1.], dtype=float32)
    """

    def __init__(self, env: Any, min_action: Any, max_action: Any) -> None:
        """Wrap ``env`` (a Box action space); ``min_action`` / ``max_action``: numbers or arrays."""
        name, batch = self._start(env, min_action=min_action, max_action=max_action)
        single = self._single_space(env, "action")
        box, gradient, intercept = rescaled_box(name, single, min_action, max_action, "action")
        self._wrap(env, action_space=box)
        self._bounds = ActionBounds(self, box, batch)
        # Gymnasium's vector wrapper casts to the env's action dtype
        fn = partial(affine_inverse, dtype=np.dtype(single.dtype).name if batch else None)
        self._set_map(name, fn, None, gradient, intercept)
