"""The conversion wrappers for a single env: ``ArrayConversion`` and its named forms.

Each wrapper holds a :class:`Conversions` (what every conversion wrapper does,
single or vector): it learns the env's library and device from the first
observation, converts the env's outputs to the target library, and the user's
inputs (actions, reset options) back. The vector forms are in
:mod:`anywrap.vector.convert`.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.ToNumpy(gym.make("CartPole-v1"))
    >>> type(env.reset(seed=0)[0]).__name__
    'ndarray'
"""

from __future__ import annotations

import numbers
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap._extras import ALIASES, EXTRA, require
from anywrap.convert.converter import Converter, check_known, resolve_library
from anywrap.shell.arrays import final_obs_batch, is_packed
from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind
from anywrap.tree import leaves

__all__ = [
    "CONVERSION_NAMES",
    "ArrayConversion",
    "Conversions",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
]

CONVERSION_NAMES = (
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
)
"""The family, single and vector alike."""

Library = str | ModuleType | None


def _first_array(tree: Any) -> Any:
    for leaf in leaves(tree):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind == "O":
            continue  # Gymnasium's packed final_obs says nothing of the env's library
        if isinstance(leaf, (np.generic, numbers.Number)):
            return np.asarray(leaf)
        if hasattr(leaf, "__dlpack__") or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            return leaf
    return None


def _as_python(x: Any, cast: type) -> Any:
    """``float(x)`` or ``bool(x)`` of a 0-d array (a host sync for a device array),
    through its NumPy view (several times cheaper than JAX's own ``float``)."""
    if xp.is_host(x):
        return cast(x)
    host = xp.to_numpy(x)
    return cast(host) if host.ndim == 0 else cast(x)


class Conversions:
    """What a conversion wrapper does, single or vector (the wrapper holds one).

    :meth:`out` converts the env's outputs to the target library; :meth:`back`
    the user's inputs (actions, reset options) to the env's library and device,
    learnt from the first observation unless given.
    """

    def __init__(
        self,
        name: str,
        vector: bool,
        env_xp: Library,
        target_xp: Library,
        env_device: Any,
        target_device: Any,
        to: Library,
        device: Any,
        writable: bool,
        scalars: bool | None,
    ) -> None:
        if vector and scalars is not None:
            raise TypeError(f"{name}: vector envs always return arrays; `scalars` is for one env")
        if to is not None and target_xp is not None:
            raise TypeError(f"{name}: give `to=` or `target_xp`, not both")
        if device is not None and target_device is not None:
            raise TypeError(f"{name}: give `device=` or `target_device`, not both")
        target = to if to is not None else target_xp
        if target is None:
            raise TypeError(f"{name}: give the target library as `to=` (or target_xp)")
        self.name, self.vector = name, vector
        for lib in (target, env_xp):
            if isinstance(lib, str) and ALIASES.get(lib, lib) in EXTRA:
                require(ALIASES.get(lib, lib), name)
        try:
            self.target = resolve_library(target)
            self.env_library: str | None = None if env_xp is None else resolve_library(env_xp)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{name}: {e}") from None
        self.env_device = env_device
        self.scalars = not vector and scalars is not False
        device = device if device is not None else target_device
        self.out = Converter(self.target, device, writable, name)
        # Gymnasium's vector reward wrappers write into rewards: always writable.
        self.flags = Converter(self.target, device, vector or writable, name)
        self._back: Converter | None = None
        self.last: Any = None
        """The env's last batch of observations (a vector env's; in its library)."""

    def learn(self, obs: Any) -> None:
        """Learn the env's library and device from its first observation."""
        if self.env_library is not None:
            return
        leaf = _first_array(obs)
        if leaf is None:
            self.env_library = "numpy"
            return
        self.env_library = check_known(leaf, self.name)
        if self.env_device is None and not xp.is_host(leaf):
            dev = xp.device(leaf)
            # Host devices need no move; a device array's actions go back to its device.
            self.env_device = None if "cpu" in str(dev).lower() else dev

    def back(self, tree: Any) -> Any:
        """``tree`` (the user's) in the env's library and on its device."""
        conv = self._back
        if conv is None:
            if self.env_library is None:
                raise RuntimeError(f"{self.name}: call reset() before step()")
            # The user speaks the target library, or passes host values.
            accept = frozenset({self.target, self.env_library, "numpy"})
            conv = self._back = Converter(
                self.env_library, self.env_device, who=self.name, accept=accept
            )
        return conv(tree)

    def reset(self, env: Any, seed: Any, options: dict[str, Any] | None) -> tuple[Any, Any]:
        """Reset ``env`` (options converted to its library) and convert obs and info."""
        if options and self.env_library is not None:
            options = self.back(options)
            mask = options.get("reset_mask")
            if isinstance(mask, np.ndarray) and not mask.any() and self.last is not None:
                # A device wrapper above asks for a masked reset without reading its
                # mask (a sync); Gymnasium's host envs refuse one that selects none.
                return self.out(self.last), {}
        obs, info = env.reset(seed=seed, options=options)
        self.learn(obs)
        self.last = obs if self.vector else None
        return self.out(obs), self.out(info)

    def step(self, env: Any, action: Any) -> tuple[Any, Any, Any, Any, Any]:
        """Convert the action to ``env``'s library, step, and convert the results."""
        obs, reward, terminated, truncated, info = env.step(self.back(action))
        if self.vector:
            self.last = obs
        if self.scalars:
            reward = _as_python(reward, float)
            terminated, truncated = _as_python(terminated, bool), _as_python(truncated, bool)
        else:
            reward, terminated, truncated = (self.flags(v) for v in (reward, terminated, truncated))
        if self.vector and self.target != "numpy" and isinstance(info, dict):
            info = _final_obs_as_batch(env, obs, info)
        return self.out(obs), reward, terminated, truncated, self.out(info)


def _final_obs_as_batch(env: Any, obs: Any, info: dict[str, Any]) -> dict[str, Any]:
    """``info`` with Gymnasium's SAME_STEP ``final_obs`` (a NumPy object array, None
    where a sub-env did not end) as one batch, the layout of device envs: an object
    array of another library's arrays is no array of that library, and the stateful
    wrappers above would get one. Rows without a final observation hold the current
    one; ``info["_final_obs"]`` says which rows are real."""
    if not is_packed(info.get("final_obs")):
        return info
    batch, _ = final_obs_batch(info, obs, env.single_observation_space, env.num_envs)
    return {**info, "final_obs": batch}


class ArrayConversion(Shell, gym.Wrapper):
    """Converts an env's outputs to another array library, and its inputs back.

    Observations, rewards, terminations, truncations, infos (nested) and render
    frames go to the target library; actions and reset options go back to the
    env's library and device. Spaces are unchanged, as in Gymnasium's conversion
    wrappers. Conversion is zero-copy through DLPack wherever the source allows
    (see :mod:`anywrap.convert`).

    Two spellings: Gymnasium's ``ArrayConversion(env, env_xp, target_xp,
    env_device=None, target_device=None)`` and anywrap's ``ArrayConversion(env,
    to=..., device=...)``, where the env's library and device are read from the
    first observation. ``writable=True`` (NumPy target) copies read-only leaves,
    the views of JAX or TensorFlow arrays, for code that writes in place.

    Rewards, terminations and truncations: by default (``scalars=True``) Python
    ``float`` / ``bool``, as Gymnasium returns them (reading the value is a host
    sync for device arrays); ``scalars=False`` keeps them as 0-d arrays of the
    target library, with no sync.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ArrayConversion(gym.make("CartPole-v1"), to="torch")
        >>> obs, info = env.reset(seed=0)
        >>> type(obs).__name__, obs.dtype, tuple(obs.shape)
        ('Tensor', torch.float32, (4,))

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(
        self,
        env: gym.Env,
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
        """Wrap ``env``; see the class docstring for the arguments."""
        gym.utils.RecordConstructorArgs.__init__(
            self,
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
        check_env_kind(self, env)
        name = f"anywrap.{type(self).__name__}"
        args = (env_xp, target_xp, env_device, target_device, to, device, writable, scalars)
        self._conv = Conversions(name, False, *args)
        gym.Wrapper.__init__(self, env)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset (options converted to the env's library) and convert obs and info."""
        return self._conv.reset(self.env, seed, options)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Convert the action to the env's library, step, and convert the results."""
        return self._conv.step(self.env, action)

    def render(self) -> Any:
        """The env's render output, converted to the target library."""
        return self._conv.out(self.env.render())


class ToNumpy(ArrayConversion):
    """Converts an env's arrays to NumPy (views where possible).

    ``writable=True`` copies the read-only leaves (views of JAX or TensorFlow
    arrays) for code that writes in place.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ToNumpy(gym.make("phys2d/CartPole-v1"))
        >>> type(env.reset(seed=0)[0]).__name__
        'ndarray'
    """

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
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            device=device,
            env_xp=env_xp,
            env_device=env_device,
            writable=writable,
            scalars=scalars,
        )
        check_env_kind(self, env)
        super().__init__(
            env,
            env_xp,
            env_device=env_device,
            to="numpy",
            device=device,
            writable=writable,
            scalars=scalars,
        )


class ToTorch(ArrayConversion):
    """Converts an env's arrays to PyTorch tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ToTorch(gym.make("CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

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
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            device=device,
            env_xp=env_xp,
            env_device=env_device,
            writable=writable,
            scalars=scalars,
        )
        check_env_kind(self, env)
        super().__init__(
            env,
            env_xp,
            env_device=env_device,
            to="torch",
            device=device,
            writable=writable,
            scalars=scalars,
        )


class ToJax(ArrayConversion):
    """Converts an env's arrays to JAX arrays, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ToJax(gym.make("CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'jax'
    """

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
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            device=device,
            env_xp=env_xp,
            env_device=env_device,
            writable=writable,
            scalars=scalars,
        )
        check_env_kind(self, env)
        super().__init__(
            env,
            env_xp,
            env_device=env_device,
            to="jax",
            device=device,
            writable=writable,
            scalars=scalars,
        )


class ToTensorFlow(ArrayConversion):
    """Converts an env's arrays to TensorFlow tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ToTensorFlow(gym.make("CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'tensorflow'
    """

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
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            device=device,
            env_xp=env_xp,
            env_device=env_device,
            writable=writable,
            scalars=scalars,
        )
        check_env_kind(self, env)
        to = "tensorflow"
        super().__init__(
            env,
            env_xp,
            env_device=env_device,
            to=to,
            device=device,
            writable=writable,
            scalars=scalars,
        )


class JaxToNumpy(ArrayConversion):
    """Gymnasium's ``JaxToNumpy``: a JAX env seen through NumPy (same arguments and spec).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.JaxToNumpy(gym.make("phys2d/CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'numpy'
    """

    def __init__(self, env: gym.Env) -> None:
        """Wrap ``env``."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        super().__init__(env, env_xp="jax", to="numpy")


class JaxToTorch(ArrayConversion):
    """Gymnasium's ``JaxToTorch``: a JAX env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.JaxToTorch(gym.make("phys2d/CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    def __init__(self, env: gym.Env, device: Any = None) -> None:
        """Wrap ``env``; tensors go to ``device`` if given."""
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, device=device)
        check_env_kind(self, env)
        super().__init__(env, env_xp="jax", to="torch", device=device)


class NumpyToTorch(ArrayConversion):
    """Gymnasium's ``NumpyToTorch``: a NumPy env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.NumpyToTorch(gym.make("CartPole-v1"))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    def __init__(self, env: gym.Env, device: Any = None) -> None:
        """Wrap ``env``; tensors go to ``device`` if given."""
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, device=device)
        check_env_kind(self, env)
        super().__init__(env, env_xp="numpy", to="torch", device=device)
