"""The stateless functional wrappers: pure maps of the observation, action or reward."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

from anywrap.shell.arrays import check_reward_bounds, dtype_space, rescaled_box, reshape_space
from anywrap.shell.checks import callable_argument, flag, wrapper_name
from anywrap.shell.images import grayscale_map, resize_map
from anywrap.transforms.actions import clip_action
from anywrap.transforms.clip_reward import clip_reward
from anywrap.transforms.discretize import discretize, undiscretize
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan
from anywrap.transforms.rescale import affine, affine_inverse
from anywrap.transforms.reshape_observation import reshape_observation
from anywrap.tree import tree_map
from anywrap.wrappers.transform_observation import checked_bins, discrete_space, filter_map

from .core import ActionMap, FunctionalEnv, ObservationMap, RewardMap, batch_ndim, constant

__all__ = [
    "ClipAction",
    "ClipReward",
    "DiscretizeAction",
    "DiscretizeObservation",
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "TransformAction",
    "TransformObservation",
    "TransformReward",
]


class TransformObservation(ObservationMap):
    """Apply a pure function ``func`` to every observation (``observation_space``: the
    new space, if ``func`` changes it).

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformObservation(env, lambda o: jnp.clip(o, -0.5, 0.5))
        >>> float(abs(env.reset(jax.random.key(0))[0]).max())  # 0.88 and -0.842 clipped
        0.5
    """

    def __init__(
        self,
        env: FunctionalEnv,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None = None,
    ) -> None:
        super().__init__(env)
        self.func = self._map = callable_argument(wrapper_name(self), "func", func)
        self._obs_space = observation_space


class TransformAction(ActionMap):
    """Apply a pure function ``func`` to every action before the env sees it
    (``action_space``: the agent's space, if ``func`` changes it).

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=2)
        >>> env = F.TransformAction(car, lambda a: 0.5 * a)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = jax.jit(env.step)(state, jnp.ones((2, 1)))  # the env gets 0.5
        >>> [round(r, 4) for r in step.reward.tolist()]  # MountainCar charges 0.1 * a**2
        [-0.025, -0.025]
    """

    def __init__(
        self, env: FunctionalEnv, func: Callable[[Any], Any], action_space: gym.Space | None = None
    ) -> None:
        super().__init__(env)
        self.func = callable_argument(wrapper_name(self), "func", func)
        self._act_space = action_space
        self._checked = False  # ``func`` takes what its user gives it

    def _act(self, action: Any) -> Any:
        return self.func(action)


class TransformReward(RewardMap):
    """Apply a pure function ``func`` to every reward.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TransformReward(env, lambda r: jnp.clip(r, -1.0, 0.0))
        >>> _, state = env.reset(jax.random.key(0))
        >>> [round(r, 3) for r in env.step(state, jnp.zeros((2, 1))).reward.tolist()]
        [-0.277, -1.0]
    """

    def __init__(self, env: FunctionalEnv, func: Callable[[jax.Array], jax.Array]) -> None:
        super().__init__(env)
        self.func = self._reward = callable_argument(wrapper_name(self), "func", func)


class ClipAction(ActionMap):
    """Clip a continuous action to the action space's bounds; the space becomes
    ``Box(-inf, inf)``, as in Gymnasium.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=3)
        >>> env = F.ClipAction(car)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = env.step(state, jnp.array([[5.0], [-0.25], [-3.0]]))  # 1, -0.25, -1
        >>> [round(r, 5) for r in step.reward.tolist()]  # MountainCar charges 0.1 * a**2
        [-0.1, -0.00625, -0.1]
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        space = env.action_space
        if not isinstance(space, gym.spaces.Box):
            raise TypeError(f"{wrapper_name(self)}: expected a Box action space, got {space}")
        self._low, self._high = np.asarray(space.low), np.asarray(space.high)
        self._act_space = gym.spaces.Box(-np.inf, np.inf, space.shape, space.dtype)

    def _act(self, action: Any) -> Any:
        a = jnp.asarray(action)
        low = jnp.asarray(self._low, dtype=a.dtype)
        return clip_action(a, low, jnp.asarray(self._high, dtype=a.dtype))


class RescaleAction(ActionMap):
    """Affinely rescale a Box action space to ``[min_action, max_action]``, as
    :class:`anywrap.RescaleAction` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.RescaleAction(bare, -1.0, 1.0)
        >>> _, state = env.reset(jax.random.key(0))
        >>> a = env.step(state, jnp.full((2, 1), 0.5)).obs  # 0.5 in [-1, 1] is 1.0 in [-2, 2]
        >>> env.action_space, bool((a == bare.step(state, jnp.full((2, 1), 1.0)).obs).all())
        (Box(-1.0, 1.0, (1,), float32), True)
    """

    def __init__(self, env: FunctionalEnv, min_action: Any, max_action: Any) -> None:
        super().__init__(env)
        self.min_action, self.max_action = min_action, max_action
        self._act_space, self._g, self._c = rescaled_box(
            wrapper_name(self), env.action_space, min_action, max_action, "action"
        )

    def _act(self, action: Any) -> Any:
        return affine_inverse(jnp.asarray(action), constant(self._g), constant(self._c))


class DiscretizeAction(ActionMap):
    """The agent names a bin of a finite Box action space, the env gets its centre, as
    :class:`anywrap.DiscretizeAction` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=2)
        >>> env = F.DiscretizeAction(car, bins=4)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = jax.jit(env.step)(state, jnp.array([0, 3]))  # centres -0.75, 0.75
        >>> env.action_space, [round(r, 4) for r in step.reward.tolist()]  # 0.1 * a**2
        (Discrete(4), [-0.0563, -0.0563])
    """

    def __init__(
        self, env: FunctionalEnv, bins: int | tuple[int, ...], multidiscrete: bool = False
    ):
        super().__init__(env)
        owner = wrapper_name(self)
        self.multidiscrete = flag(owner, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(owner, env.action_space, bins, "action")
        self._act_space = discrete_space(self.bins, self.multidiscrete)
        self._consts, space = plan.action, env.action_space
        self._shape, self._dtype = tuple(space.shape), np.dtype(space.dtype).name

    def _act(self, action: Any) -> Any:
        centers, bins, strides = (constant(c) for c in self._consts)
        a = jnp.asarray(action)
        return undiscretize(a, centers, bins, strides, self._shape, self._dtype, self.multidiscrete)


class ClipReward(RewardMap):
    """Clip every reward to ``[min_reward, max_reward]``, as :class:`anywrap.ClipReward` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ClipReward(env, -1.0, None)
        >>> _, state = env.reset(jax.random.key(0))
        >>> [round(r, 3) for r in env.step(state, jnp.zeros((2, 1))).reward.tolist()]
        [-0.277, -1.0]
    """

    def __init__(self, env: FunctionalEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        super().__init__(env)
        check_reward_bounds(wrapper_name(self), min_reward, max_reward)
        self.min_reward, self.max_reward = min_reward, max_reward

    def _reward(self, reward: Any) -> Any:
        low, high = (
            b if b is None or isinstance(b, float | int) else constant(b)
            for b in (self.min_reward, self.max_reward)
        )
        return clip_reward(reward, low, high)


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
        self._obs_space = gym.spaces.utils.flatten_space(env.observation_space)

    def _map(self, obs: Any) -> Any:
        return flatten_observation(tree_map(jnp.asarray, obs), self._plan, batch_ndim(self.env))


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
        self._obs_space = reshape_space(wrapper_name(self), env.observation_space, shape)
        self.shape = shape

    def _map(self, obs: Any) -> Any:
        shape = tuple(self._obs_space.shape or ())
        return reshape_observation(jnp.asarray(obs), shape, batch_ndim(self.env))


class DtypeObservation(ObservationMap):
    """Cast every observation to ``dtype``, as :class:`anywrap.DtypeObservation` does
    (a 64-bit dtype is held in 32 bits when JAX's x64 is off).

    Example:
        >>> import jax, gymnax, numpy as np
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> F.DtypeObservation(env, np.float16).reset(jax.random.key(0))[0].dtype
        dtype('float16')
    """

    def __init__(self, env: FunctionalEnv, dtype: Any) -> None:
        super().__init__(env)
        self._obs_space = dtype_space(wrapper_name(self), env.observation_space, dtype)
        self.dtype = dtype

    def _map(self, obs: Any) -> Any:
        return cast(jnp.asarray(obs), np.dtype(self._obs_space.dtype).name)


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
        self._obs_space, self._g, self._c = rescaled_box(
            wrapper_name(self), env.observation_space, min_obs, max_obs, "obs"
        )

    def _map(self, obs: Any) -> Any:
        return affine(jnp.asarray(obs), constant(self._g), constant(self._c))


class FilterObservation(ObservationMap):
    """Keep the entries ``filter_keys`` of a Dict (keys) or Tuple (indices) observation, as
    :class:`anywrap.FilterObservation` does.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TimeAwareObservation(env, flatten=False, max_timesteps=200)
        >>> env = F.FilterObservation(env, ["time"])
        >>> env.observation_space, env.reset(jax.random.key(0))[0]["time"].tolist()
        (Dict('time': Box(0, 200, (1,), int32)), [[0], [0]])
    """

    def __init__(self, env: FunctionalEnv, filter_keys: Sequence[str | int]) -> None:
        super().__init__(env)
        owner, space = wrapper_name(self), env.observation_space
        self._obs_space, self._map, _ = filter_map(owner, space, filter_keys)
        self.filter_keys = filter_keys


class DiscretizeObservation(ObservationMap):
    """Each observation becomes the index of its bin in a finite Box observation space, as
    :class:`anywrap.DiscretizeObservation` does (int32 indices without JAX's x64).

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.DiscretizeObservation(env, bins=2, multidiscrete=True)
        >>> env.observation_space, jax.jit(env.reset)(jax.random.key(0))[0].tolist()
        (MultiDiscrete([2 2 2]), [[1, 1, 0], [0, 0, 0]])
    """

    def __init__(
        self, env: FunctionalEnv, bins: int | tuple[int, ...], multidiscrete: bool = False
    ):
        super().__init__(env)
        owner = wrapper_name(self)
        self.multidiscrete = flag(owner, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(owner, env.observation_space, bins, "observation")
        self._obs_space = discrete_space(self.bins, self.multidiscrete)
        self._consts, self._shape = plan.observation, tuple(env.observation_space.shape)

    def _map(self, obs: Any) -> Any:
        low, upper, edges, strides = (constant(c) for c in self._consts)
        x = jnp.asarray(obs)
        return discretize(x, low, upper, edges, strides, self._shape, self.multidiscrete)


class GrayscaleObservation(ObservationMap):
    """Gymnasium's grayscale of uint8 RGB observations, as
    :class:`anywrap.GrayscaleObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> rgb = jnp.broadcast_to(jnp.array([40, 20, 50], jnp.uint8), (4, 6, 3))
        >>> space = gym.spaces.Box(0, 255, (4, 6, 3), "uint8")
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0])
        >>> pixels = F.TransformObservation(env, lambda obs: rgb, space)  # always that frame
        >>> obs, _ = F.GrayscaleObservation(pixels).reset(jax.random.key(0))
        >>> obs.shape, int(obs[0, 0])  # 0.2125 * 40 + 0.7154 * 20 + 0.0721 * 50 = 26.4
        ((4, 6), 26)
    """

    def __init__(self, env: FunctionalEnv, keep_dim: bool = False) -> None:
        super().__init__(env)
        image = grayscale_map(wrapper_name(self), env.observation_space, keep_dim)
        self._obs_space, self._map = image.space, image.fn
        self.keep_dim = keep_dim


class ResizeObservation(ObservationMap):
    """Resize image observations to ``shape``, as :class:`anywrap.ResizeObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym, gymnax
        >>> from anywrap import functional as F
        >>> ramp = jnp.broadcast_to(jnp.arange(0, 300, 50, dtype=jnp.uint8), (4, 6))
        >>> space = gym.spaces.Box(0, 255, (4, 6), "uint8")
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0])
        >>> pixels = F.TransformObservation(env, lambda obs: ramp, space)  # always that frame
        >>> env = F.ResizeObservation(pixels, (2, 3))
        >>> env.observation_space, env.reset(jax.random.key(0))[0].tolist()  # 2x2 block means
        (Box(0, 255, (2, 3), uint8), [[25, 125, 225], [25, 125, 225]])
    """

    def __init__(
        self, env: FunctionalEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        super().__init__(env)
        image = resize_map(wrapper_name(self), env.observation_space, shape, interpolation)
        self._obs_space, self._map = image.space, image.fn
        self.shape, self.interpolation = image.space.shape[:2], interpolation
