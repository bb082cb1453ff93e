"""The conversion wrappers for vector envs: the forms of :mod:`anywrap.convert.wrappers`
over :class:`gymnasium.vector.VectorWrapper`.

Why the rewards are always writable, and when observations need ``writable=True``:
see :mod:`anywrap.convert` (read-only views).

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> envs = anywrap.vector.ToNumpy(gym.make_vec("CartPole-v1", num_envs=2))
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape
    (2, 4)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.convert.wrappers import Conversions, Library
from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind

__all__ = [
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "VectorArrayConversion",
]


class ArrayConversion(Shell, VectorWrapper):
    """Converts a vector env's outputs to another array library, and its inputs back.

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

    Rewards, terminations and truncations stay arrays, and are always writable
    (Gymnasium's vector reward wrappers write into them in place; a read-only
    view is copied, ``num_envs`` values). ``scalars``, the single env's switch
    to Python numbers, is kept in the signature so that both shells take the
    same arguments, and any value is refused with a ``TypeError``.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2)
        >>> env = anywrap.vector.ArrayConversion(envs, to="torch")
        >>> obs, info = env.reset(seed=0)
        >>> type(obs).__name__, obs.dtype, tuple(obs.shape)
        ('Tensor', torch.float32, (2, 4))

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(
        self,
        env: VectorEnv,
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
        name = f"anywrap.vector.{type(self).__name__}"
        args = (env_xp, target_xp, env_device, target_device, to, device, writable, scalars)
        self._conv = Conversions(name, True, *args)
        VectorWrapper.__init__(self, env)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset (options converted to the env's library) and convert obs and info."""
        return self._conv.reset(self.env, seed, options)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Convert the actions to the env's library, step, and convert the results."""
        return self._conv.step(self.env, actions)

    def render(self) -> Any:
        """The env's render output, converted to the target library."""
        return self._conv.out(self.env.render())


class ToNumpy(ArrayConversion):
    """Converts a vector env's arrays to NumPy (views where possible).

    ``writable=True`` copies the read-only leaves (views of JAX or TensorFlow
    arrays) for code that writes in place.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToNumpy(gym.make_vec("phys2d/CartPole-v1", num_envs=2))
        >>> type(env.reset(seed=0)[0]).__name__
        'ndarray'
    """

    def __init__(
        self,
        env: VectorEnv,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; ``writable``: see :class:`ArrayConversion`."""
        gym.utils.RecordConstructorArgs.__init__(
            self, device=device, env_xp=env_xp, env_device=env_device, writable=writable
        )
        check_env_kind(self, env)
        super().__init__(
            env, env_xp, env_device=env_device, to="numpy", device=device, writable=writable
        )


class ToTorch(ArrayConversion):
    """Converts a vector env's arrays to PyTorch tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToTorch(gym.make_vec("CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    def __init__(
        self,
        env: VectorEnv,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; ``writable``: see :class:`ArrayConversion`."""
        gym.utils.RecordConstructorArgs.__init__(
            self, device=device, env_xp=env_xp, env_device=env_device, writable=writable
        )
        check_env_kind(self, env)
        super().__init__(
            env, env_xp, env_device=env_device, to="torch", device=device, writable=writable
        )


class ToJax(ArrayConversion):
    """Converts a vector env's arrays to JAX arrays, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToJax(gym.make_vec("CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'jax'
    """

    def __init__(
        self,
        env: VectorEnv,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; ``writable``: see :class:`ArrayConversion`."""
        gym.utils.RecordConstructorArgs.__init__(
            self, device=device, env_xp=env_xp, env_device=env_device, writable=writable
        )
        check_env_kind(self, env)
        super().__init__(
            env, env_xp, env_device=env_device, to="jax", device=device, writable=writable
        )


class ToTensorFlow(ArrayConversion):
    """Converts a vector env's arrays to TensorFlow tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToTensorFlow(gym.make_vec("CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'tensorflow'
    """

    def __init__(
        self,
        env: VectorEnv,
        device: Any = None,
        *,
        env_xp: Library = None,
        env_device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; ``writable``: see :class:`ArrayConversion`."""
        gym.utils.RecordConstructorArgs.__init__(
            self, device=device, env_xp=env_xp, env_device=env_device, writable=writable
        )
        check_env_kind(self, env)
        to = "tensorflow"
        super().__init__(
            env, env_xp, env_device=env_device, to=to, device=device, writable=writable
        )


class JaxToNumpy(ArrayConversion):
    """Gymnasium's ``JaxToNumpy``: a JAX vector env seen through NumPy (same arguments and spec).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.JaxToNumpy(gym.make_vec("phys2d/CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'numpy'
    """

    def __init__(self, env: VectorEnv) -> None:
        """Wrap ``env``."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        super().__init__(env, env_xp="jax", to="numpy")


class JaxToTorch(ArrayConversion):
    """Gymnasium's ``JaxToTorch``: a JAX vector env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.JaxToTorch(gym.make_vec("phys2d/CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    def __init__(self, env: VectorEnv, device: Any = None) -> None:
        """Wrap ``env``; tensors go to ``device`` if given."""
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, device=device)
        check_env_kind(self, env)
        super().__init__(env, env_xp="jax", to="torch", device=device)


class NumpyToTorch(ArrayConversion):
    """Gymnasium's ``NumpyToTorch``: a NumPy vector env seen through PyTorch (on ``device``).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.NumpyToTorch(gym.make_vec("CartPole-v1", num_envs=2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    def __init__(self, env: VectorEnv, device: Any = None) -> None:
        """Wrap ``env``; tensors go to ``device`` if given."""
        gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, device=device)
        check_env_kind(self, env)
        super().__init__(env, env_xp="numpy", to="torch", device=device)


VectorArrayConversion = ArrayConversion
"""Gymnasium's name of the generic vector conversion."""
