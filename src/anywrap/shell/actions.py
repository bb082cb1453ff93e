"""Action checks and bounds that the single and vector ``ClipAction`` share.

Example:
    >>> import gymnasium as gym
    >>> import numpy as np
    >>> from anywrap.shell.actions import ActionBounds
    >>> bounds = ActionBounds("demo", gym.spaces.Box(-1.0, 1.0, (2,)))
    >>> bounds.clip(np.array([3.0, -0.5]))
    array([ 1. , -0.5])
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.actions import clip_action
from anywrap.tree import first_leaf

__all__ = ["ActionBounds", "ObservesEnvLibrary"]


class ActionBounds:
    """A Box's bounds, converted once per (library, device) of the actions that arrive.

    Checks each action before it reaches the env: its shape, and that it is of
    the env's library and on its device (host values are accepted anywhere).
    """

    def __init__(self, owner: Any, space: gym.spaces.Box, batch: tuple[int, ...] = ()) -> None:
        self.owner, self.space = owner, space
        self.shape = batch + tuple(space.shape)
        self.batched = bool(batch)
        self._cache: dict[tuple[type, str], tuple[Any, Any, Any]] = {}
        self.env_type: type | None = None
        self.env_device: Any = None

    def observe(self, observation: Any) -> None:
        """Learn the env's array library and device from an observation it returned."""
        leaf = first_leaf(observation)
        if not axp.is_host(leaf):
            self.env_type, self.env_device = type(leaf), axp.device(leaf)

    def check(self, action: Any) -> tuple[Any, Any, Any, Any]:
        """``(action, low, high, clip)`` in the action's library, or a clear error.

        ``clip(action, low, high)`` is the compiled transform; for a batched
        (vector) action it casts to the space's dtype, as Gymnasium does.
        """
        if type(action) is np.ndarray and action.shape == self.shape:  # the common case
            key = (np.ndarray, "cpu")
            if key in self._cache:
                return (action, *self._cache[key])
        if isinstance(action, (list, tuple, int, float)):
            action = np.asarray(action)
        host = axp.is_host(action)
        if not host:
            try:
                axp.namespace(action)
            except axp.UnknownArrayTypeError as e:
                raise axp.UnknownArrayTypeError(f"{wrapper_name(self.owner)}: {e}") from e
        if not host and self.env_type is not None and type(action) is not self.env_type:
            raise TypeError(
                f"{wrapper_name(self.owner)}: expected an action of the env's library "
                f"({self.env_type.__module__}.{self.env_type.__qualname__} on "
                f"{self.env_device}), got {axp.describe(action)}"
            )
        shape = tuple(getattr(action, "shape", ()))
        if shape != self.shape:
            raise ValueError(
                f"{wrapper_name(self.owner)}: expected an action of shape {self.shape} "
                f"(action space {self.space}), got {axp.describe(action)}"
            )
        dev = axp.device(action)
        if not host and self.env_device is not None and not axp.same_device(dev, self.env_device):
            raise ValueError(
                f"{wrapper_name(self.owner)}: expected an action on the env's device "
                f"{self.env_device}, got {axp.describe(action)}"
            )
        key = (type(action), str(dev))
        bounds = self._cache.get(key)
        if bounds is None:
            xp = axp.namespace(action)
            low, high = self.space.low, self.space.high
            if xp is not np:
                low = xp.asarray(low, device=dev)
                high = xp.asarray(high, device=dev)
            dtype = getattr(xp, self.space.dtype.name) if self.batched else None
            # One compiled call per step on JAX (clip and cast fused); the host
            # has nothing to compile.
            clip: Any = partial(clip_action, dtype=dtype)
            if xp is not np:
                clip = axp.Compiled(clip, 0)
            bounds = self._cache[key] = (low, high, clip)
        return action, *bounds

    def clip(self, action: Any) -> Any:
        """``action`` checked, then clipped by the transform."""
        action, low, high, clip = self.check(action)
        return clip(action, low, high)


class ObservesEnvLibrary:
    """Mixin: learn the env's array library from the reset observation."""

    env: Any
    _bounds: ActionBounds

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and learn its array library and device from the observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._bounds.observe(obs)
        return obs, info
