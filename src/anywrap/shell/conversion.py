"""The base of every conversion wrapper (``anywrap.ToTorch``, ``anywrap.vector.ToJax``...).

Example:
    >>> import anywrap
    >>> env = anywrap.ToNumpy(gym.make("CartPole-v1"))
    >>> type(env.reset(seed=0)[0]).__name__, isinstance(env, ToLibrary)
    ('ndarray', True)
"""

from __future__ import annotations

import importlib
import numbers
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorWrapper

from anywrap import xp
from anywrap._extras import ALIASES, EXTRA, require
from anywrap.convert.converter import Converter, check_known, named_library
from anywrap.shell.arrays import final_obs_batch, is_packed
from anywrap.shell.base import Shell
from anywrap.shell.checks import flag
from anywrap.tree import leaves

Library = str | ModuleType | None


def _first_array(tree: Any) -> Any:
    for leaf in leaves(tree):
        if isinstance(leaf, (np.generic, numbers.Number)):
            return np.asarray(leaf)
        if hasattr(leaf, "__dlpack__") or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            return leaf
    return None


def _as_python(x: Any, cast: type) -> Any:
    if xp.is_host(x):
        return cast(x)
    host = xp.to_numpy(x)  # through the NumPy view: several times cheaper than JAX's float()
    return cast(host) if host.ndim == 0 else cast(x)


class _ModuleName(str):
    """A recorded module argument, by name, in a pickled conversion wrapper."""


class ConversionShell(Shell):
    """Outputs to the target library; actions and reset options back to the env's library
    and device (learnt from the first observation)."""

    _env_xp: Library = None  # a named form's (``JaxToTorch``...) env library
    _to: str  # and its target

    def __init__(
        self,
        env: Any,
        env_xp: Library = None,
        target_xp: Library = None,
        env_device: Any = None,
        target_device: Any = None,
        *,
        to: Library = None,
        device: Any = None,
        writable: bool = False,
        scalars: bool | None = None,
    ) -> None:
        """Wrap ``env``; see :class:`ArrayConversion` for the arguments."""
        name, _ = self._start(
            env,
            _disable_deepcopy=True,
            env_xp=env_xp,
            target_xp=target_xp,
            env_device=env_device,
            target_device=target_device,
            to=to,
            device=device,
            writable=writable,
            scalars=scalars,
        )
        self._vector = vector = isinstance(self, VectorWrapper)
        self._name = name
        if vector and scalars is not None:
            raise TypeError(f"{name}: vector envs always return arrays; `scalars` is for one env")
        if scalars is not None:
            flag(name, "scalars", scalars)
        flag(name, "writable", writable)
        if to is not None and target_xp is not None:
            raise TypeError(f"{name}: give `to=` or `target_xp`, not both")
        if device is not None and target_device is not None:
            raise TypeError(f"{name}: give `device=` or `target_device`, not both")
        target = to if to is not None else target_xp
        if target is None:
            raise TypeError(f"{name}: give the target library as `to=` (or target_xp)")
        for lib in (target, env_xp):
            if isinstance(lib, str) and ALIASES.get(lib, lib) in EXTRA:
                require(ALIASES.get(lib, lib), name)
        self._target = named_library(target, name)
        self._env_library = None if env_xp is None else named_library(env_xp, name)
        self._env_device = env_device
        self._scalars = not vector and scalars is not False
        device = device if device is not None else target_device
        self._out = Converter(self._target, device, writable, name)
        # Gymnasium's vector reward wrappers write into rewards: always writable.
        self._flags = Converter(self._target, device, vector or writable, name)
        self._back: Converter | None = None
        self._last: Any = None  # a vector env's last observations, in its library
        self._wrap(env)

    def __getstate__(self) -> dict[str, Any]:
        # A module cannot be pickled: the recorded arguments keep its name (as Gymnasium's do).
        saved = {
            k: _ModuleName(v.__name__) if isinstance(v, ModuleType) else v
            for k, v in self._saved_kwargs.items()
        }
        return {**self.__dict__, "_saved_kwargs": saved}

    def __setstate__(self, state: dict[str, Any]) -> None:
        saved = state["_saved_kwargs"]
        state["_saved_kwargs"] = {
            k: importlib.import_module(v) if type(v) is _ModuleName else v for k, v in saved.items()
        }
        self.__dict__.update(state)

    def _learn(self, obs: Any) -> None:  # the env's library and device, from an observation
        if self._env_library is not None:
            return
        leaf = _first_array(obs)
        self._env_library = "numpy" if leaf is None else check_known(leaf, self._name)
        if leaf is not None and self._env_device is None and not xp.is_host(leaf):
            dev = xp.device(leaf)
            self._env_device = None if "cpu" in str(dev).lower() else dev

    def _backward(self, tree: Any) -> Any:
        """``tree`` (the user's) in the env's library and on its device."""
        conv = self._back
        if conv is None:
            if self._env_library is None:
                raise RuntimeError(f"{self._name}: call reset() before step()")
            accept = frozenset({self._target, self._env_library, "numpy"})
            conv = self._back = Converter(
                self._env_library, self._env_device, who=self._name, accept=accept
            )
        return conv(tree)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset (options converted to the env's library) and convert obs and info."""
        if options and self._env_library is not None:
            options = self._backward(options)
            mask = options.get("reset_mask")
            if isinstance(mask, np.ndarray) and not mask.any() and self._last is not None:
                # Gymnasium's host envs refuse a mask that selects none.
                return self._out(self._last), {}
        obs, info = self.env.reset(seed=seed, options=options)  # type: ignore[attr-defined]
        self._learn(obs)
        self._last = obs if self._vector else None
        return self._out(obs), self._out(info)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Convert the action to the env's library, step, and convert the results."""
        env = self.env  # type: ignore[attr-defined]
        obs, reward, terminated, truncated, info = env.step(self._backward(action))
        if self._vector:
            self._last = obs
        if self._scalars:
            reward = _as_python(reward, float)
            terminated, truncated = _as_python(terminated, bool), _as_python(truncated, bool)
        else:
            reward, terminated, truncated = map(self._flags, (reward, terminated, truncated))
        final = info.get("final_obs") if isinstance(info, dict) else None
        if self._vector and self._target != "numpy" and is_packed(final):
            batch, _ = final_obs_batch(
                self._name, info, obs, env.single_observation_space, env.num_envs
            )
            info = {**info, "final_obs": batch}
        return self._out(obs), reward, terminated, truncated, self._out(info)

    def render(self) -> Any:
        """The env's render output, converted to the target library."""
        return self._out(self.env.render())  # type: ignore[attr-defined]

    def _named(self, env: Any, **kwargs: Any) -> None:
        """A named form's construction: its own arguments recorded, then ``_to`` set."""
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, **kwargs)
        kwargs.setdefault("env_xp", self._env_xp)
        ConversionShell.__init__(self, env, to=self._to, **kwargs)


class LibraryPair(ConversionShell):
    """Gymnasium's ``JaxToTorch`` and ``NumpyToTorch``: from ``_env_xp`` to ``_to``."""

    def __init__(self, env: Any, device: Any = None) -> None:
        """Wrap ``env``; arrays go to ``device`` if given."""
        self._named(env, device=device)


class ToLibrary(ConversionShell):
    """The single-env ``To*`` forms (listed before ``ArrayConversion``): to ``_to``."""

    def __init__(
        self,
        env: gym.Env,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
        scalars: bool | None = None,
    ) -> None:
        """Wrap ``env``; ``writable`` and ``scalars``: see :class:`ArrayConversion`."""
        kwargs = {"device": device, "env_xp": env_xp, "env_device": env_device}
        self._named(env, **kwargs, writable=writable, scalars=scalars)


class VectorToLibrary(ConversionShell):
    """The vector ``To*`` forms (listed before ``ArrayConversion``): to ``_to``."""

    def __init__(
        self,
        env: Any,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; ``writable``: see :class:`ArrayConversion`."""
        self._named(env, device=device, env_xp=env_xp, env_device=env_device, writable=writable)
