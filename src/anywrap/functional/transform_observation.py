"""The stateless observation maps for functional envs: ``obs`` and ``info["final_obs"]``
sent through one pure function, jittable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import jax.numpy as jnp
import numpy as np

from anywrap.shell.arrays import dtype_space, rescaled_box, reshape_space
from anywrap.shell.checks import callable_argument, wrapper_name
from anywrap.shell.images import grayscale_map, resize_map
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan
from anywrap.transforms.rescale import affine
from anywrap.transforms.reshape_observation import reshape_observation
from anywrap.tree import tree_map

from .core import FunctionalEnv, ObservationMap, batch_ndim, constant

__all__ = [
    "DtypeObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "TransformObservation",
]


class TransformObservation(ObservationMap):
    """Apply a pure function ``func`` to every observation.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformObservation(bare, lambda o: jnp.clip(o, -0.5, 0.5))
        >>> np.asarray(bare.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.88 ,  0.475, -0.559],
               [-0.842, -0.54 , -0.276]], dtype=float32)
        >>> np.asarray(env.reset(jax.random.key(0))[0]).round(3)
        array([[ 0.5  ,  0.475, -0.5  ],
               [-0.5  , -0.5  , -0.276]], dtype=float32)
    """

    def __init__(
        self,
        env: FunctionalEnv,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None = None,
    ) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)
        self._space = observation_space

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self.env.observation_space if self._space is None else self._space

    def _map(self, obs: Any) -> Any:
        return self.func(obs)


class DtypeObservation(ObservationMap):
    """Cast every observation to ``dtype``, as :class:`anywrap.DtypeObservation` does
    (a 64-bit dtype is held in 32 bits when JAX's x64 is off).

    Example:
        >>> import jax, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.DtypeObservation(env, np.float16)
        >>> env.reset(jax.random.key(0))[0].dtype
        dtype('float16')
    """

    def __init__(self, env: FunctionalEnv, dtype: Any) -> None:
        super().__init__(env)
        self._space = dtype_space(wrapper_name(self), env.observation_space, dtype)
        self.dtype = dtype

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return cast(jnp.asarray(obs), np.dtype(self._space.dtype).name)


class FlattenObservation(ObservationMap):
    """Flatten every observation, as :class:`anywrap.FlattenObservation` does.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.FlattenObservation(F.ReshapeObservation(env, (3, 1)))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3,), (2, 3))
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        self._plan = flatten_plan(env.observation_space, wrapper_name(self))
        self._space = gym.spaces.utils.flatten_space(env.observation_space)

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return flatten_observation(tree_map(jnp.asarray, obs), self._plan, batch_ndim(self.env))


class GrayscaleObservation(ObservationMap):
    """Gymnasium's grayscale of uint8 RGB observations, as
    :class:`anywrap.GrayscaleObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> rgb = jnp.broadcast_to(jnp.array([40, 20, 50], jnp.uint8), (4, 6, 3))
        >>> pixels = F.TransformObservation(  # every observation that one 4x6 frame
        ...     F.from_gymnax(gymnax.make("Pendulum-v1")[0]),
        ...     lambda obs: rgb,
        ...     gym.spaces.Box(0, 255, (4, 6, 3), "uint8"),
        ... )
        >>> obs, _ = F.GrayscaleObservation(pixels).reset(jax.random.key(0))
        >>> obs.shape, int(obs[0, 0])  # 0.2125 * 40 + 0.7154 * 20 + 0.0721 * 50 = 26.4
        ((4, 6), 26)
    """

    def __init__(self, env: FunctionalEnv, keep_dim: bool = False) -> None:
        super().__init__(env)
        self._image = grayscale_map(wrapper_name(self), env.observation_space, keep_dim)
        self.keep_dim = keep_dim

    observation_space = property(lambda self: self._image.space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return self._image.fn(obs)


class RescaleObservation(ObservationMap):
    """Affinely rescale a Box observation to ``[min_obs, max_obs]``, as
    :class:`anywrap.RescaleObservation` does.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.RescaleObservation(env, -1.0, 1.0)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.observation_space, bool((abs(obs) <= 1).all())
        (Box(-1.0, 1.0, (3,), float32), True)
    """

    def __init__(self, env: FunctionalEnv, min_obs: Any, max_obs: Any) -> None:
        super().__init__(env)
        self.min_obs, self.max_obs = min_obs, max_obs
        self._space, self._g, self._c = rescaled_box(
            wrapper_name(self), env.observation_space, min_obs, max_obs, "obs"
        )

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return affine(jnp.asarray(obs), constant(self._g), constant(self._c))


class ReshapeObservation(ObservationMap):
    """Reshape every Box observation to ``shape``, as :class:`anywrap.ReshapeObservation`.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ReshapeObservation(env, (3, 1))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3, 1), (2, 3, 1))
    """

    def __init__(self, env: FunctionalEnv, shape: tuple[int, ...]) -> None:
        super().__init__(env)
        self._space = reshape_space(wrapper_name(self), env.observation_space, shape)
        self.shape = shape

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        shape = tuple(self._space.shape or ())
        return reshape_observation(jnp.asarray(obs), shape, batch_ndim(self.env))


class ResizeObservation(ObservationMap):
    """Resize image observations to ``shape``, as :class:`anywrap.ResizeObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> ramp = jnp.broadcast_to(jnp.arange(0, 300, 50, dtype=jnp.uint8), (4, 6))
        >>> pixels = F.TransformObservation(  # every observation that one 4x6 gray frame
        ...     F.from_gymnax(gymnax.make("Pendulum-v1")[0]),
        ...     lambda obs: ramp,
        ...     gym.spaces.Box(0, 255, (4, 6), "uint8"),
        ... )
        >>> env = F.ResizeObservation(pixels, (2, 3))
        >>> obs, _ = env.reset(jax.random.key(0))
        >>> env.observation_space, obs.tolist()  # each pixel the mean of a 2x2 block
        (Box(0, 255, (2, 3), uint8), [[25, 125, 225], [25, 125, 225]])
    """

    def __init__(
        self, env: FunctionalEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        super().__init__(env)
        self._image = resize_map(wrapper_name(self), env.observation_space, shape, interpolation)
        self.shape, self.interpolation = self._image.space.shape[:2], interpolation

    observation_space = property(lambda self: self._image.space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return self._image.fn(obs)
