"""Zero-copy conversion wrappers for vector environments.

The vector versions of :mod:`anywrap.convert`: observations, rewards,
terminations, truncations, infos (``final_obs``, ``final_info`` and the
``_key`` masks included) go to the target library; actions and reset options
go back to the environment's. Everything stays an array (no Python scalars).

Gymnasium's vector reward wrappers write into the reward array in place
(``VectorizeTransformReward.rewards`` does ``rewards[i] = ...``), so for a
NumPy target the rewards, terminations and truncations are always writable: a
read-only view (of a JAX or TensorFlow array) is copied, which costs a copy of
``num_envs`` values. Observations stay zero-copy views unless
``writable=True``; Gymnasium's vector ``FlattenObservation`` needs it when
flattening leaves the space unchanged (a 1-D ``Box``), because it then stacks
its result back into the input observation array.

Example:
    >>> import gymnasium as gym
    >>> envs = VectorArrayConversion(gym.make_vec("CartPole-v1", num_envs=2), to="numpy")
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape
    (2, 4)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.convert import _Conversions, _Converter, resolve_library, target_of

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


class ArrayConversion(_Conversions, VectorWrapper, gym.utils.RecordConstructorArgs):
    """Convert a vector environment's outputs to another array library, inputs back.

    Accepts Gymnasium's ``ArrayConversion(env, env_xp, target_xp, env_device=None,
    target_device=None)`` and anywrap's ``ArrayConversion(env, to=..., device=...)``
    (the env's library and device are then read from the first observation).
    Spaces are unchanged, as in Gymnasium.

    Example:
        >>> import gymnasium as gym
        >>> envs = ArrayConversion(gym.make_vec("CartPole-v1", num_envs=2), to="numpy")
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[1].dtype  # CartPole's own vector env
        dtype('float32')

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(
        self,
        env: VectorEnv,  # type: ignore[type-arg]
        env_xp: str | ModuleType | None = None,
        target_xp: str | ModuleType | None = None,
        env_device: Any = None,
        target_device: Any = None,
        *,
        to: str | ModuleType | None = None,
        device: Any = None,
        writable: bool = False,
    ) -> None:
        """Wrap ``env``; see the class docstring for the arguments."""
        target, device = target_of(type(self).__name__, to, target_xp, device, target_device)
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            env_xp=None if env_xp is None else resolve_library(env_xp),
            to=resolve_library(target),
            env_device=env_device,
            device=device,
            writable=writable,
        )
        VectorWrapper.__init__(self, env)
        self._setup_conversion(
            target, device, env_xp, env_device, writable, "vector." + type(self).__name__
        )
        # Gymnasium's vector reward wrappers write into rewards: always writable.
        self._out_flags = _Converter(self._target, device, True, self._name)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Convert the actions to the env's library, step, and convert the results."""
        obs, reward, terminated, truncated, info = self.env.step(self._in(actions))
        flags = self._out_flags
        reward, terminated, truncated = flags(reward), flags(terminated), flags(truncated)
        return self._out(obs), reward, terminated, truncated, self._out(info)


VectorArrayConversion = ArrayConversion


class ToNumpy(ArrayConversion):
    """Convert a vector environment's arrays to NumPy (views where possible).

    Example:
        >>> import gymnasium as gym
        >>> envs = ToNumpy(gym.make_vec("CartPole-v1", num_envs=2))
        >>> type(envs.reset(seed=0)[0]).__name__
        'ndarray'
    """

    def __init__(
        self,
        env: VectorEnv,  # type: ignore[type-arg]
        *,
        writable: bool = False,
        env_xp: str | ModuleType | None = None,
        env_device: Any = None,
    ) -> None:
        """Wrap ``env``; ``writable=True`` copies read-only observation leaves."""
        super().__init__(env, env_xp, env_device=env_device, to="numpy", writable=writable)


class _ToLibrary(ArrayConversion):
    """A conversion to one fixed library (the subclass's ``_target``)."""

    _target = ""

    def __init__(
        self,
        env: VectorEnv,  # type: ignore[type-arg]
        device: Any = None,
        *,
        env_xp: str | ModuleType | None = None,
        env_device: Any = None,
    ) -> None:
        """Wrap ``env``; arrays go to ``device`` if given (default: where they are)."""
        super().__init__(env, env_xp, env_device=env_device, to=self._target, device=device)


class ToTorch(_ToLibrary):
    """Convert a vector environment's arrays to PyTorch tensors.

    Example:
        >>> import gymnasium as gym, torch
        >>> envs = ToTorch(gym.make_vec("CartPole-v1", num_envs=2))
        >>> type(envs.reset(seed=0)[0])
        <class 'torch.Tensor'>
    """

    _target = "torch"


class ToJax(_ToLibrary):
    """Convert a vector environment's arrays to JAX arrays.

    Example:
        >>> import gymnasium as gym, jax
        >>> envs = ToJax(gym.make_vec("CartPole-v1", num_envs=2))
        >>> isinstance(envs.reset(seed=0)[0], jax.Array)
        True
    """

    _target = "jax"


class ToTensorFlow(_ToLibrary):
    """Convert a vector environment's arrays to TensorFlow tensors.

    Example:
        >>> import gymnasium as gym, tensorflow as tf
        >>> envs = ToTensorFlow(gym.make_vec("CartPole-v1", num_envs=2))
        >>> isinstance(envs.reset(seed=0)[0], tf.Tensor)
        True
    """

    _target = "tensorflow"


class JaxToTorch(ArrayConversion):
    """Gymnasium's vector ``JaxToTorch(env, device=None)``.

    Example:
        >>> envs = JaxToTorch(jax_vector_env)  # doctest: +SKIP
    """

    def __init__(self, env: VectorEnv, device: Any = None) -> None:  # type: ignore[type-arg]
        """Wrap the JAX vector env ``env``; tensors go to ``device`` if given."""
        super().__init__(env, env_xp="jax", to="torch", device=device)


class JaxToNumpy(ArrayConversion):
    """Gymnasium's vector ``JaxToNumpy(env)``.

    Example:
        >>> envs = JaxToNumpy(jax_vector_env)  # doctest: +SKIP
    """

    def __init__(self, env: VectorEnv) -> None:  # type: ignore[type-arg]
        """Wrap the JAX vector env ``env``."""
        super().__init__(env, env_xp="jax", to="numpy")


class NumpyToTorch(ArrayConversion):
    """Gymnasium's vector ``NumpyToTorch(env, device=None)``.

    Example:
        >>> envs = NumpyToTorch(gym.make_vec("CartPole-v1", num_envs=2))  # doctest: +SKIP
    """

    def __init__(self, env: VectorEnv, device: Any = None) -> None:  # type: ignore[type-arg]
        """Wrap the NumPy vector env ``env``; tensors go to ``device`` if given."""
        super().__init__(env, env_xp="numpy", to="torch", device=device)
