"""The single-env conversion wrappers: ``ArrayConversion`` and its named forms."""

from __future__ import annotations

import gymnasium as gym

from anywrap.shell.conversion import ConversionShell, LibraryPair, ToLibrary

__all__ = [
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
]


class ArrayConversion(ConversionShell, gym.Wrapper):
    """Converts an env's outputs (observations, rewards, flags, nested infos, render
    frames) to another array library, zero-copy where DLPack allows, and its inputs
    (actions, reset options) back to the env's library and device. Spaces are unchanged.

    Gymnasium's spelling ``ArrayConversion(env, env_xp, target_xp, env_device, target_device)``,
    or ``ArrayConversion(env, to=..., device=...)``, which reads the env's library and device
    from the first observation. ``writable=True`` (NumPy target) copies read-only leaves (views
    of JAX or TensorFlow arrays). Rewards and flags are Python numbers, as in Gymnasium (a host
    sync for device arrays); ``scalars=False`` keeps them as 0-d arrays of the target library.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.ArrayConversion(gym.make("CartPole-v1"), to="torch")
        >>> obs, info = env.reset(seed=0)
        >>> type(obs).__name__, obs.dtype, tuple(obs.shape)
        ('Tensor', torch.float32, (4,))
    """


class ToNumpy(ToLibrary, ArrayConversion):
    """Converts an env's arrays to NumPy (views where possible).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> type(anywrap.ToNumpy(gym.make("phys2d/CartPole-v1")).reset(seed=0)[0]).__name__
        'ndarray'
    """

    _to = "numpy"


class ToTorch(ToLibrary, ArrayConversion):
    """Converts an env's arrays to PyTorch tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.ToTorch(gym.make("CartPole-v1")).reset(seed=0)[0])
        'torch'
    """

    _to = "torch"


class ToJax(ToLibrary, ArrayConversion):
    """Converts an env's arrays to JAX arrays, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.ToJax(gym.make("CartPole-v1")).reset(seed=0)[0])
        'jax'
    """

    _to = "jax"


class ToTensorFlow(ToLibrary, ArrayConversion):
    """Converts an env's arrays to TensorFlow tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.ToTensorFlow(gym.make("CartPole-v1")).reset(seed=0)[0])
        'tensorflow'
    """

    _to = "tensorflow"


class JaxToNumpy(ArrayConversion):
    """Gymnasium's ``JaxToNumpy``: a JAX env seen through NumPy (same arguments and spec).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.JaxToNumpy(gym.make("phys2d/CartPole-v1")).reset()[0])
        'numpy'
    """

    _env_xp, _to = "jax", "numpy"

    def __init__(self, env: gym.Env) -> None:
        self._named(env)


class JaxToTorch(LibraryPair, ArrayConversion):
    """Gymnasium's ``JaxToTorch``: a JAX env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.JaxToTorch(gym.make("phys2d/CartPole-v1")).reset()[0])
        'torch'
    """

    _env_xp, _to = "jax", "torch"


class NumpyToTorch(LibraryPair, ArrayConversion):
    """Gymnasium's ``NumpyToTorch``: a NumPy env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.NumpyToTorch(gym.make("CartPole-v1")).reset(seed=0)[0])
        'torch'
    """

    _env_xp, _to = "numpy", "torch"
