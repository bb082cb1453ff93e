"""Image wrappers for a single env: GrayscaleObservation, ResizeObservation,
FrameStackObservation, MaxAndSkipObservation."""

from __future__ import annotations

from functools import partial
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

from anywrap import xp as axp
from anywrap.shell.base import Shell
from anywrap.shell.images import (
    ImageMap,
    OwnedState,
    box_space,
    check_frames,
    check_positive_int,
    grayscale_map,
    padding_of,
    resize_map,
)
from anywrap.transforms.frames import (
    FrameStack,
    MaxFrames,
    init_frame_stack,
    init_max_frames,
    max_of_two,
    push_frame,
    reset_frame_stack,
)

__all__ = [
    "FrameStackObservation",
    "GrayscaleObservation",
    "MaxAndSkipObservation",
    "ResizeObservation",
]


class _ImageObservation(gym.ObservationWrapper):
    """A stateless image map of every observation, one compiled call on JAX."""

    _NAME: str

    def _wrap(self, env: gym.Env, image: ImageMap) -> None:
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = image.space
        self._in_shape = image.in_shape
        self._fn = axp.Compiled(image.fn)

    def observation(self, observation: Any) -> Any:
        """The observation mapped."""
        check_frames(self._NAME, observation, self._in_shape, dtype="uint8")
        return self._fn(observation)


class GrayscaleObservation(_ImageObservation, Shell):
    """Converts RGB image observations to grayscale, on any array library.

    .. math:: y = \\lfloor 0.2125 r + 0.7154 g + 0.0721 b \\rfloor

    Drop-in for :class:`gymnasium.wrappers.GrayscaleObservation`: same
    arguments, spaces and numbers, bit for bit on every backend (Gymnasium
    truncates a float64 sum; see :mod:`anywrap.transforms.images` for how the
    same numbers come out of float32-only backends). ``keep_dim`` keeps a
    channel axis of size 1. On JAX each call is one compiled program.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import numpy as np
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.GrayscaleObservation(gym.make("ALE/Pong-v5"))
        >>> env.observation_space
        Box(0, 255, (210, 160), uint8)
        >>> env.observation(np.full((210, 160, 3), 43, np.uint8))[0, :3]  # Gymnasium's 42
        array([42, 42, 42], dtype=uint8)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.GrayscaleObservation"

    def __init__(self, env: gym.Env, keep_dim: bool = False) -> None:
        """Wrap ``env``, whose observation space is a uint8 ``(H, W, 3)`` Box with bounds 0 to 255.

        Args:
            env: The env to wrap.
            keep_dim: Keep a channel axis of size 1 (``(H, W, 1)``).
        """
        image = grayscale_map(self._NAME, env.observation_space, keep_dim)
        self._wrap(env, image)
        self.keep_dim = keep_dim


class ResizeObservation(_ImageObservation, Shell):
    """Resizes image observations to ``shape``, on any array library.

    Drop-in for :class:`gymnasium.wrappers.ResizeObservation` (same
    arguments and spaces). The default filter is Gymnasium's, OpenCV's
    ``INTER_AREA``: on NumPy it is OpenCV itself when OpenCV is installed
    (and OpenCV's arithmetic written out when it is not); on JAX and PyTorch
    the same filter, within 1 of OpenCV's numbers (see
    :mod:`anywrap.xp.images`). Gymnasium needs OpenCV; this wrapper does not.

    ``interpolation="bilinear"`` (an addition) takes each backend's own
    antialiased bilinear resize instead (``jax.image.resize``,
    ``torch.nn.functional.interpolate``): a different filter, up to tens of
    grey levels from Gymnasium's on sharp edges.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.ResizeObservation(gym.make("ALE/Pong-v5"), (84, 84))
        >>> env.observation_space
        Box(0, 255, (84, 84, 3), uint8)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.shape, obs.dtype
        ((84, 84, 3), dtype('uint8'))

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.ResizeObservation"

    def __init__(
        self, env: gym.Env, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        """Wrap ``env``, whose observation space is a uint8 ``(H, W)`` or ``(H, W, C)``
        Box with bounds 0 to 255.

        Args:
            env: The env to wrap.
            shape: The new ``(height, width)``.
            interpolation: ``"area"`` (Gymnasium's filter) or ``"bilinear"``.
        """
        image = resize_map(self._NAME, env.observation_space, shape, interpolation)
        self._wrap(env, image)
        self.shape, self.interpolation = image.space.shape[:2], interpolation


def _stack_reset(state: FrameStack, obs: Any, *, pad_with_first: bool) -> Any:
    state, out = reset_frame_stack(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


def _stack_push(state: FrameStack, obs: Any, *, pad_with_first: bool) -> Any:
    state, out = push_frame(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


class FrameStackObservation(OwnedState, gym.Wrapper, Shell):
    """Stacks the last ``stack_size`` observations, oldest first, on any array library.

    Drop-in for :class:`gymnasium.wrappers.FrameStackObservation` (same
    arguments, space and numbers). Until an episode has ``stack_size``
    frames, the stack is padded in front: with the reset observation
    (``padding_type="reset"``, the default), zeros (``"zero"``) or a given
    observation.

    The frames live in a ring buffer on the env's device: each step writes
    one frame into it and reads the stack out with one gather (the returned
    stack is a fresh array, as Gymnasium's is). Gymnasium copies the whole
    stack twice per step. On JAX each step is one compiled call that
    updates the buffer in place. Observation spaces are Boxes (Gymnasium
    also takes other spaces).

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.FrameStackObservation(gym.make("CartPole-v1"), 3, padding_type="zero")
        >>> env.observation_space.shape
        (3, 4)
        >>> obs, _ = env.reset(seed=123)
        >>> obs[:, 0]
        array([0.        , 0.        , 0.01823519], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.FrameStackObservation"

    def __init__(self, env: gym.Env, stack_size: int, *, padding_type: str | Any = "reset") -> None:
        """Wrap ``env`` (a Box observation space).

        Args:
            env: The env to wrap.
            stack_size: How many observations to stack (at least 1).
            padding_type: ``"reset"``, ``"zero"`` or an observation of the env's space.
        """
        gym.Wrapper.__init__(self, env)
        stack_size = check_positive_int(self._NAME, "stack_size", stack_size, 1)
        space = box_space(self._NAME, env.observation_space)
        kind, self.padding_value = padding_of(self._NAME, space, padding_type)
        self.observation_space = batch_space(space, n=stack_size)
        self.stack_size = stack_size
        self.padding_type = kind
        self._frame_shape = tuple(space.shape)
        custom = self.padding_value if kind != "reset" else None
        self._state = init_frame_stack(
            1, stack_size, self._frame_shape, xp=np, dtype=space.dtype, padding=custom
        )
        first = kind == "reset"
        self._reset = axp.Compiled(partial(_stack_reset, pad_with_first=first), donate=True)
        self._push = axp.Compiled(partial(_stack_push, pad_with_first=first), donate=True)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the stack is the reset observation after ``stack_size - 1`` paddings."""
        obs, info = self.env.reset(seed=seed, options=options)
        check_frames(self._NAME, obs, self._frame_shape)
        self._follow(obs)
        self._state, out = self._reset(self._state, obs)
        return out, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step and append the observation to the stack."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        check_frames(self._NAME, obs, self._frame_shape)
        self._follow(obs)
        self._state, out = self._push(self._state, obs)
        return out, reward, terminated, truncated, info


def _max_of_two(state: MaxFrames, a: Any, b: Any, rewards: tuple[Any, ...]) -> Any:
    state, out = max_of_two(state, a, b)
    total = None
    for r in rewards:
        total = r if total is None else total + r
    return state, out, total


class MaxAndSkipObservation(OwnedState, gym.Wrapper, Shell):
    """Repeats each action ``skip`` times; returns the maximum of the last two
    frames and the summed reward, on any array library.

    Drop-in for :class:`gymnasium.wrappers.MaxAndSkipObservation`, quirks
    included: the loop stops at a ``terminated`` or ``truncated`` step, and
    the two-frame buffer is never cleared, so a call that ends before the
    last two steps returns frames left from an earlier call.

    The loop must know whether the episode ended before it steps again, so
    it reads ``terminated`` and ``truncated`` on the host (Gymnasium's envs
    return Python booleans: nothing to sync). Frames stay in their library
    and on their device, and a reward that is not a host value is summed
    there. ``anywrap.vector.MaxAndSkipObservation`` reads nothing.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.MaxAndSkipObservation(gym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=123)
        >>> obs, reward, *_ = env.step(1)
        >>> obs.shape, reward
        ((4,), 2.0)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.MaxAndSkipObservation"

    def __init__(self, env: gym.Env, skip: int = 4) -> None:
        """Wrap ``env`` (a Box observation space).

        Args:
            env: The env to wrap.
            skip: How many times each action is repeated (at least 2).
        """
        gym.Wrapper.__init__(self, env)
        self._skip = check_positive_int(self._NAME, "skip", skip, 2)
        space = box_space(self._NAME, env.observation_space)
        self._frame_shape = tuple(space.shape)
        self._state = init_max_frames((), self._frame_shape, xp=np, dtype=space.dtype)
        self._fn = axp.Compiled(_max_of_two, donate=True)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step ``skip`` times (fewer if the episode ends) with ``action``."""
        total_reward: Any = 0.0
        device_rewards: list[Any] = []
        frames: list[Any] = [None, None]
        terminated: Any = False
        truncated: Any = False
        info: dict[str, Any] = {}
        obs: Any = None
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            check_frames(self._NAME, obs, self._frame_shape)
            if i >= self._skip - 2:
                frames[i - (self._skip - 2)] = obs
            if axp.is_host(reward):
                total_reward += float(reward)
            else:
                device_rewards.append(reward)
            if terminated or truncated:
                break
        self._follow(obs)
        self._state, out, summed = self._fn(
            self._state, frames[0], frames[1], tuple(device_rewards)
        )
        if summed is not None:
            total_reward = summed + total_reward if total_reward else summed
        return out, total_reward, terminated, truncated, info
