"""The action check that the action wrappers share.

Example:
    >>> ActionBounds("demo", gym.spaces.Box(-1.0, 1.0, (2,))).check([3.0, -0.5])
    array([ 3. , -0.5])
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.checks import wrapper_name
from anywrap.tree import first_leaf


class ActionBounds:
    """Checks each action's shape, library and device (learnt by :meth:`observe`) before
    it reaches the env; host values move to a device env."""

    def __init__(self, owner: Any, space: gym.spaces.Box, batch: tuple[int, ...] = ()) -> None:
        self.owner, self.space = owner, space
        self.shape = batch + tuple(space.shape)
        self._real: set[Any] = set()  # the action dtypes seen that are real numbers
        self.env_type: type | None = None
        self.env_device: Any = None
        self.env_library: str | None = None  # None: a NumPy env (or none seen yet)
        self._device_name: str | None = None  # str(env_device), what actions are compared with

    def __getstate__(self) -> dict[str, Any]:
        # A copy learns the env's device again (a JAX Device cannot be pickled).
        return dict(self.__dict__, _real=set(), env_type=None, env_device=None, env_library=None)

    def observe(self, observation: Any) -> None:
        """Learn the env's array library and device from an observation it returned."""
        leaf = first_leaf(observation)
        if xp.is_host(leaf):
            self.env_type, self.env_device, self.env_library = np.ndarray, "cpu", None
        else:
            self.env_type, self.env_device = type(leaf), xp.device(leaf)
            self.env_library = xp.library_name(leaf)
        self._device_name = str(self.env_device)

    def _refuse(self, action: Any, expected: str, error: type = TypeError) -> Exception:
        """The error for an ``action`` that is not ``expected`` ("of shape (2,)"...)."""
        return error(
            f"{wrapper_name(self.owner)}: expected an action {expected}, got {xp.describe(action)}"
        )

    def check(self, action: Any) -> Any:
        """``action`` in the env's library and on its device, or a clear error."""
        kind = type(action)
        if (  # the common case: the env's own type, shape and a dtype seen, on its device
            kind is (self.env_type or np.ndarray)
            and action.shape == self.shape
            and action.dtype in self._real
            and (self.env_library is None or str(xp.device(action)) == self._device_name)
        ):
            return action
        if action is None or isinstance(action, (str, bytes, dict)):
            raise self._refuse(action, f"of shape {self.shape} (action space {self.space})")
        if isinstance(action, (list, tuple, int, float, np.generic)):
            action = np.asarray(action)
        host = xp.is_host(action)
        if not host and type(action) is not self.env_type:  # the env's own type is known
            try:
                xp.namespace(action)
            except xp.UnknownArrayTypeError as e:
                raise xp.UnknownArrayTypeError(f"{wrapper_name(self.owner)}: {e}") from e
            if self.env_type is not None:
                lib = "NumPy (a NumPy env)" if self.env_library is None else "the env's library"
                raise self._refuse(
                    action,
                    f"of {lib}: {self.env_type.__module__}.{self.env_type.__qualname__} on "
                    f"{self.env_device}, or a host value",
                )
        if tuple(getattr(action, "shape", ())) != self.shape:
            raise self._refuse(
                action, f"of shape {self.shape} (action space {self.space})", ValueError
            )
        dtype = action.dtype
        if dtype not in self._real:  # once per dtype
            # a Discrete or MultiDiscrete action is an index (Gymnasium's raises on 2.5)
            index = isinstance(self.space, gym.spaces.Discrete | gym.spaces.MultiDiscrete)
            kinds = ("integral",) if index else ("real floating",)
            if not xp.namespace(action).isdtype(dtype, ("bool", "integral", *kinds)):
                what = "an integer" if kinds == ("integral",) else "a real"
                raise self._refuse(action, f"of {what} dtype (action space {self.space})")
            self._real.add(dtype)
        if host and self.env_library is not None:  # a host value for a device env
            action = xp.to_library(action, self.env_library, self.env_device)
        if self.env_device is not None and str(xp.device(action)) != str(self.env_device):
            raise self._refuse(action, f"on the env's device {self.env_device}", ValueError)
        return action
