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

    Checks each action before it reaches the env, with the rule every anywrap
    action wrapper follows:

    * host values (NumPy arrays and scalars, Python numbers and lists) are
      accepted anywhere; for an env of a device library (JAX, PyTorch, ...)
      they are moved to its library and device first, so the env always gets
      its own kind of array;
    * an array of the env's library must be on the env's device;
    * an array of any other library is refused (a tensor for a NumPy or JAX
      env, a JAX array for a PyTorch env);
    * the shape must be the action space's (with the batch in front for a
      vector env).

    The env's library and device are learnt from its observations (see
    :meth:`observe`); before the first one, device arrays are taken as they come.
    """

    def __init__(self, owner: Any, space: gym.spaces.Box, batch: tuple[int, ...] = ()) -> None:
        self.owner, self.space = owner, space
        self.shape = batch + tuple(space.shape)
        self.batched = bool(batch)
        self._cache: dict[tuple[type, Any], tuple[Any, Any, Any]] = {}
        self.env_type: type | None = None
        self.env_device: Any = None
        self._env_backend: axp.Backend | None = None

    def observe(self, observation: Any) -> None:
        """Learn the env's array library and device from an observation it returned."""
        leaf = first_leaf(observation)
        if axp.is_host(leaf):
            self.env_type, self.env_device, self._env_backend = np.ndarray, "cpu", None
        else:
            self.env_type, self.env_device = type(leaf), axp.device(leaf)
            self._env_backend = axp.backend_of(leaf)

    def _refuse(self, action: Any, expected: str) -> TypeError:
        return TypeError(
            f"{wrapper_name(self.owner)}: expected an action of {expected}, "
            f"got {axp.describe(action)}"
        )

    def check(self, action: Any) -> tuple[Any, Any, Any, Any]:
        """``(action, low, high, clip)`` in the env's library, or a clear error.

        ``clip(action, low, high)`` is the compiled transform; for a batched
        (vector) action it casts to the space's dtype, as Gymnasium does.
        """
        if type(action) is np.ndarray and action.shape == self.shape and self._env_backend is None:
            bounds = self._cache.get((np.ndarray, "cpu"))  # the common case: NumPy to NumPy
            if bounds is not None:
                return (action, *bounds)
        if action is None or isinstance(action, (str, bytes, dict)):
            raise self._refuse(action, f"shape {self.shape} (action space {self.space})")
        if isinstance(action, (list, tuple, int, float, np.generic)):
            action = np.asarray(action)
        host = axp.is_host(action)
        if not host and type(action) is not self.env_type:  # the env's own type is known
            try:
                axp.namespace(action)
            except axp.UnknownArrayTypeError as e:
                raise axp.UnknownArrayTypeError(f"{wrapper_name(self.owner)}: {e}") from e
            if self.env_type is not None:
                lib = "NumPy (a NumPy env)" if self._env_backend is None else "the env's library"
                raise self._refuse(
                    action,
                    f"{lib}: {self.env_type.__module__}.{self.env_type.__qualname__} on "
                    f"{self.env_device}, or a host value",
                )
        shape = tuple(getattr(action, "shape", ()))
        if shape != self.shape:
            raise ValueError(
                f"{wrapper_name(self.owner)}: expected an action of shape {self.shape} "
                f"(action space {self.space}), got {axp.describe(action)}"
            )
        if host and self._env_backend is not None:  # a host value for a device env
            action = self._env_backend.import_array(action, self.env_device)
        dev = axp.device(action)
        if self.env_device is not None and not axp.same_device(dev, self.env_device):
            raise ValueError(
                f"{wrapper_name(self.owner)}: expected an action on the env's device "
                f"{self.env_device}, got {axp.describe(action)}"
            )
        key: tuple[type, Any] = (type(action), dev)
        try:
            bounds = self._cache.get(key)
        except TypeError:  # a device object that cannot be hashed: its name
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
