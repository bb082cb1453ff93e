"""Stateless array wrappers for a single env: ClipReward, DtypeObservation,
FlattenObservation, ReshapeObservation."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound

from anywrap import xp as axp
from anywrap.shell.arrays import LibraryConstants
from anywrap.shell.base import Shell
from anywrap.transforms.arrays import (
    cast,
    clip_reward,
    flatten_observation,
    flatten_plan,
    reshape_observation,
)

__all__ = [
    "ClipReward",
    "DtypeObservation",
    "FlattenObservation",
    "ReshapeObservation",
    "check_reward_bounds",
    "dtype_space",
    "reshape_space",
]


def check_reward_bounds(owner: str, min_reward: Any, max_reward: Any) -> None:
    """Gymnasium's checks on ``ClipReward``'s bounds, with the wrapper named."""
    if min_reward is None and max_reward is None:
        raise InvalidBound(f"{owner}: `min_reward` and `max_reward` cannot both be None")
    if min_reward is not None and max_reward is not None:
        if np.any(np.asarray(max_reward) - np.asarray(min_reward) < 0):
            raise InvalidBound(
                f"{owner}: `min_reward` ({min_reward}) must be smaller than `max_reward` "
                f"({max_reward})"
            )


def _bound(value: Any) -> Any:
    """A Python number stays one (it takes the reward's dtype); anything else is an array."""
    if value is None or isinstance(value, float | int):
        return value
    return np.asarray(value)


class ClipReward(gym.RewardWrapper, Shell):
    """Clips every reward to ``[min_reward, max_reward]``, in the reward's own library.

    Drop-in for :class:`gymnasium.wrappers.ClipReward`: same arguments,
    errors and numbers (NumPy's ``np.clip``, so a Python float reward comes
    back as ``np.float64``; a bound given as an array promotes the reward's
    dtype as ``np.clip`` does). Either bound may be ``None``, not both. A
    tensor reward is clipped on its device.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.ClipReward(gym.make("CartPole-v1"), 0.0, 0.5)
        >>> _ = env.reset(seed=0)
        >>> env.step(1)[1]
        np.float64(0.5)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, min_reward: Any = None, max_reward: Any = None) -> None:
        """Wrap ``env``; ``min_reward`` / ``max_reward``: numbers, arrays or ``None``."""
        check_reward_bounds("anywrap.ClipReward", min_reward, max_reward)
        gym.RewardWrapper.__init__(self, env)
        self.min_reward, self.max_reward = min_reward, max_reward
        self._consts = LibraryConstants(
            "anywrap.ClipReward", low=_bound(min_reward), high=_bound(max_reward)
        )
        self._clip = axp.Compiled(clip_reward, 0)

    def reward(self, reward: Any) -> Any:
        """The reward clipped."""
        if axp.is_host(reward):
            return clip_reward(reward, self._consts.values["low"], self._consts.values["high"])
        k = self._consts.get(reward)
        return self._clip(reward, k["low"], k["high"])


def dtype_space(owner: str, space: gym.Space, dtype: Any) -> gym.Space:
    """Gymnasium's ``DtypeObservation`` space: ``space`` holding ``dtype``."""
    if isinstance(space, gym.spaces.Box):
        return gym.spaces.Box(space.low, space.high, space.shape, dtype=dtype)
    if isinstance(space, gym.spaces.Discrete):
        return gym.spaces.Box(space.start, space.start + space.n - 1, (), dtype=dtype)
    if isinstance(space, gym.spaces.MultiDiscrete):
        return gym.spaces.MultiDiscrete(space.nvec, dtype=dtype, start=space.start)
    if isinstance(space, gym.spaces.MultiBinary):
        return gym.spaces.Box(0, 1, space.shape, dtype=dtype)
    raise TypeError(
        f"{owner}: expected a Box, Discrete, MultiDiscrete or MultiBinary observation space, "
        f"got {space}"
    )


class DtypeObservation(gym.ObservationWrapper, Shell):
    """Casts every observation to ``dtype``, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.DtypeObservation`: same argument,
    spaces (a Discrete space becomes a 0-d Box, a MultiBinary one a Box) and
    numbers. On a library without float64 (JAX without x64) a float64 cast
    gives float32.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.DtypeObservation(gym.make("CartPole-v1"), np.float64)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.dtype, env.observation_space.dtype
        (dtype('float64'), dtype('float64'))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        space = dtype_space("anywrap.DtypeObservation", env.observation_space, dtype)
        gym.ObservationWrapper.__init__(self, env)
        self.dtype = dtype
        self.observation_space = space
        self._name = np.dtype(space.dtype).name
        self._casts: dict[Any, axp.Compiled] = {}

    def observation(self, observation: Any) -> Any:
        """The observation in the new dtype."""
        if axp.is_host(observation):
            return cast(observation, self._name)
        xp = axp.namespace(observation)
        dtype = axp.resolve_dtype(xp, self._name, axp.device(observation))
        fn = self._casts.get(dtype)
        if fn is None:
            fn = self._casts[dtype] = axp.Compiled(partial(cast, dtype=dtype), 0)
        return fn(observation)


class FlattenObservation(gym.ObservationWrapper, Shell):
    """Flattens every observation into one 1-D array, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.FlattenObservation` for Box,
    Discrete (one-hot), MultiDiscrete (one-hot per component), MultiBinary,
    and Dict / Tuple spaces of them: the space is
    ``gymnasium.spaces.utils.flatten_space``'s and the values those of
    ``gymnasium.spaces.utils.flatten``, dtypes included (a Box leaf takes its
    space's dtype, and joined leaves take NumPy's common dtype). Spaces that
    Gymnasium does not flatten to one array (Graph, Sequence, Text) are
    refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.FlattenObservation(gym.make("Blackjack-v1"))
        >>> env.observation_space
        Box(0, 1, (45,), int64)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.shape, int(obs.sum())
        ((45,), 3)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env) -> None:
        """Wrap ``env``."""
        plan = flatten_plan(env.observation_space, "anywrap.FlattenObservation")
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = gym.spaces.utils.flatten_space(env.observation_space)
        self._flatten = axp.Compiled(partial(flatten_observation, plan=plan), 0)

    def observation(self, observation: Any) -> Any:
        """The observation flattened."""
        return self._flatten(observation)


def reshape_space(owner: str, space: gym.Space, shape: Any) -> gym.spaces.Box:
    """Gymnasium's ``ReshapeObservation`` checks and space, with the wrapper named."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box observation space, got {space}")
    if not isinstance(shape, tuple):
        raise TypeError(f"{owner}: expected `shape` to be a tuple, got {shape!r}")
    if not all(np.issubdtype(type(d), np.integer) for d in shape):
        raise TypeError(f"{owner}: expected the entries of `shape` to be integers, got {shape}")
    if not all(d > 0 or d == -1 for d in shape):
        raise ValueError(f"{owner}: expected the entries of `shape` to be > 0 or -1, got {shape}")
    size = int(np.prod(space.shape))
    if -1 not in shape and int(np.prod(shape)) != size:
        raise ValueError(
            f"{owner}: `shape` {shape} holds {int(np.prod(shape))} values, the observation "
            f"space {space} holds {size}"
        )
    low = np.reshape(np.ravel(space.low), shape)
    return gym.spaces.Box(
        low=low,
        high=np.reshape(np.ravel(space.high), shape),
        shape=low.shape,
        dtype=space.dtype,
    )


class ReshapeObservation(gym.ObservationWrapper, Shell):
    """Reshapes every Box observation to ``shape``, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.ReshapeObservation` (same argument,
    space and values). The reshape is a view wherever the library allows one.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2))
        >>> env.observation_space.shape, env.reset(seed=0)[0].shape
        ((2, 2), (2, 2))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, shape: int | tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box observation space); ``shape``: a tuple of ints (one may be -1)."""
        space = reshape_space("anywrap.ReshapeObservation", env.observation_space, shape)
        gym.ObservationWrapper.__init__(self, env)
        self.shape = shape
        self.observation_space = space
        self._reshape = axp.Compiled(partial(reshape_observation, shape=tuple(space.shape)), 0)

    def observation(self, observation: Any) -> Any:
        """The observation reshaped."""
        return self._reshape(observation)
