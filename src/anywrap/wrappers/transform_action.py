"""Action wrappers for one env: transform, clip, rescale, discretize."""

from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.actions import ActionBounds
from anywrap.shell.arrays import rescaled_box
from anywrap.shell.checks import callable_argument, check_env_kind, checked_reset, flag
from anywrap.shell.maps import ActionMap
from anywrap.transforms.actions import clip_action
from anywrap.transforms.discretize import undiscretize
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.rescale import affine_inverse
from anywrap.wrappers.transform_observation import checked_bins, discrete_space


class TransformAction(gym.wrappers.TransformAction):
    """:class:`gymnasium.wrappers.TransformAction`, with anywrap's checks: ``func`` maps every
    action, which passes untouched.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = gym.make("MountainCarContinuous-v0")
        >>> env = anywrap.TransformAction(env, lambda a: 0.5 * a + 0.1, env.action_space)
        >>> env.action(np.array([0.0]))
        array([0.1])
    """

    def __init__(
        self, env: gym.Env, func: Callable[[Any], Any], action_space: gym.Space | None
    ) -> None:
        check_env_kind(self, env)
        callable_argument("anywrap.TransformAction", "func", func)
        super().__init__(env, func, action_space)

    reset = checked_reset(gym.wrappers.TransformAction.reset)


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


class DiscretizeAction(ActionMap):
    """Uniform bins over a finite Box action space (the env gets the named bin's centre):
    :class:`gymnasium.wrappers.DiscretizeAction`, in the action's library and device.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.DiscretizeAction(gym.make("Pendulum-v1"), bins=5)
        >>> env.action_space, env.action(3)
        (Discrete(5), array([0.8000001], dtype=float32))
    """

    def __init__(self, env: gym.Env, bins: int | tuple[int, ...], multidiscrete: bool = False):
        name, _ = self._start(env, bins=bins, multidiscrete=multidiscrete)
        multidiscrete = flag(name, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(name, env.action_space, bins, "action")
        space: Any = env.action_space
        self._wrap(env, action_space=discrete_space(self.bins, multidiscrete))
        self.low, self.high = np.ravel(space.low), np.ravel(space.high)
        self.n_dims, self.multidiscrete = int(self.low.size), multidiscrete
        self.bin_centers = [0.5 * (g[:-1] + g[1:]) for g in plan.grids]
        # (ActionBounds reads a space's shape alone: a Discrete's () or a MultiDiscrete's (n,).)
        self._bounds = ActionBounds(self, self.action_space)  # type: ignore[arg-type]
        dtype = np.dtype(space.dtype).name
        fn = partial(
            undiscretize, shape=tuple(space.shape), dtype=dtype, multidiscrete=multidiscrete
        )
        self._set_map(name, fn, None, *plan.action)

    def revert_action(self, action: Any) -> Any:
        """The bin whose centre is nearest ``action`` (a continuous action, read on the
        host): Gymnasium's inverse of :meth:`action`, for tests and analysis."""
        action = np.ravel(xp.to_numpy(action))
        index = [int(np.argmin(np.abs(c - a))) for c, a in zip(self.bin_centers, action)]
        if self.multidiscrete:
            return np.array(index, dtype=int)
        return np.ravel_multi_index(index, self.bins)
