"""The conversion wrappers of :mod:`anywrap.convert.wrappers`, for vector envs."""

from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.shell.conversion import ConversionShell, LibraryPair, VectorToLibrary


class ArrayConversion(ConversionShell, VectorWrapper):
    """:class:`anywrap.ArrayConversion` for a vector env. Rewards and flags stay arrays,
    always writable (a read-only view is copied); ``scalars`` is refused.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ArrayConversion(gym.make_vec("CartPole-v1", 2), to="torch")
        >>> type(env.reset(seed=0)[0]).__name__
        'Tensor'
    """


class ToNumpy(VectorToLibrary, ArrayConversion):
    """Converts a vector env's arrays to NumPy (views where possible).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToNumpy(gym.make_vec("phys2d/CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'numpy'
    """

    _to = "numpy"


class ToTorch(VectorToLibrary, ArrayConversion):
    """Converts a vector env's arrays to PyTorch tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToTorch(gym.make_vec("CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    _to = "torch"


class ToJax(VectorToLibrary, ArrayConversion):
    """Converts a vector env's arrays to JAX arrays, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.xp.library_name(anywrap.vector.ToJax(gym.make_vec("CartPole-v1", 2)).reset()[0])
        'jax'
    """

    _to = "jax"


class ToTensorFlow(VectorToLibrary, ArrayConversion):
    """Converts a vector env's arrays to TensorFlow tensors, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.ToTensorFlow(gym.make_vec("CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'tensorflow'
    """

    _to = "tensorflow"


class JaxToNumpy(ArrayConversion):
    """Gymnasium's ``JaxToNumpy``: a JAX vector env seen through NumPy (same arguments and spec).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.JaxToNumpy(gym.make_vec("phys2d/CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'numpy'
    """

    _env_xp, _to = "jax", "numpy"

    def __init__(self, env: VectorEnv) -> None:
        self._named(env)


class JaxToTorch(LibraryPair, ArrayConversion):
    """Gymnasium's ``JaxToTorch``: a JAX vector env seen through PyTorch, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.JaxToTorch(gym.make_vec("phys2d/CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    _env_xp, _to = "jax", "torch"


class NumpyToTorch(LibraryPair, ArrayConversion):
    """Gymnasium's ``NumpyToTorch``: a NumPy vector env seen through PyTorch (on ``device``).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.vector.NumpyToTorch(gym.make_vec("CartPole-v1", 2))
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        'torch'
    """

    _env_xp, _to = "numpy", "torch"
