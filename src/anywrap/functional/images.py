"""Image wrappers for JAX-native envs: grayscale, resize and frame stack, jittable.

For pixel envs on gymnax, Brax or MJX (rendered frames as observations).
The arithmetic is :mod:`anywrap.transforms.images` and
:mod:`anywrap.transforms.frames`, as in ``anywrap.vector``; the frame stack's
ring buffer rides in the env state (:class:`FrameStackState`), so a rollout
under ``jax.lax.scan`` updates it in place.

Example:
    >>> import jax, jax.numpy as jnp
    >>> import gymnasium as gym
    >>> from gymnasium.vector import AutoresetMode
    >>> from anywrap import functional as F
    >>> class Pixels:  # a tiny batched pixel env: 8 envs, 12x10 RGB frames
    ...     observation_space = gym.spaces.Box(0, 255, (12, 10, 3), "uint8")
    ...     action_space = gym.spaces.Discrete(2)
    ...     num_envs, autoreset_mode = 8, AutoresetMode.DISABLED
    ...     def frame(self, t):
    ...         return jnp.broadcast_to((t * 40) % 256, (8, 12, 10, 3)).astype(jnp.uint8)
    ...     def reset(self, key):
    ...         return self.frame(0), jnp.zeros((), jnp.int32)
    ...     def step(self, t, action):
    ...         no = jnp.zeros(8, bool)
    ...         return F.Step(self.frame(t + 1), t + 1, jnp.zeros(8), no, no, {})
    >>> env = F.ResizeObservation(F.GrayscaleObservation(Pixels()), (6, 5))
    >>> env = F.FrameStackObservation(env, 4)
    >>> env.observation_space
    Box(0, 255, (4, 6, 5), uint8)
    >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
    >>> step = jax.jit(env.step)
    >>> for _ in range(2):
    ...     obs, state, *_ = step(state, jnp.zeros(8, jnp.int32))
    >>> obs.shape, obs[0, :, 0, 0].tolist()
    ((8, 4, 6, 5), [0, 0, 40, 80])
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import wrapper_name
from anywrap.shell.images import (
    ImageMap,
    box_space,
    check_positive_int,
    grayscale_map,
    padding_of,
    resize_map,
)
from anywrap.transforms import frames

from .arrays import _ObservationMap
from .core import FunctionalEnv, Step, Wrapper, batch_ndim

__all__ = [
    "FrameStackObservation",
    "FrameStackState",
    "GrayscaleObservation",
    "ResizeObservation",
]


class _ImageMap(_ObservationMap):
    """A checked image map (:class:`~anywrap.shell.images.ImageMap`) of ``obs`` and
    ``info["final_obs"]``."""

    _image: ImageMap

    def _map(self, obs: Any) -> Any:
        return self._image.fn(obs)


class GrayscaleObservation(_ImageMap):
    """Gymnasium's grayscale of RGB image observations, bit for bit, jittable.

    Same arguments and spaces as :class:`anywrap.GrayscaleObservation`; the
    env's observation space is a uint8 ``(H, W, 3)`` Box with bounds 0 to 255.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym
        >>> from gymnasium.vector import AutoresetMode
        >>> from anywrap import functional as F
        >>> class Pixels:  # one 4x6 RGB frame, its colour the step count times 40
        ...     observation_space = gym.spaces.Box(0, 255, (4, 6, 3), "uint8")
        ...     action_space = gym.spaces.Discrete(2)
        ...     num_envs, autoreset_mode = None, AutoresetMode.DISABLED
        ...     def frame(self, t):
        ...         rgb = jnp.stack([t * 40, t * 20, jnp.full_like(t, 50)]).astype(jnp.uint8)
        ...         return jnp.broadcast_to(rgb, (4, 6, 3))
        ...     def reset(self, key):
        ...         t = jnp.ones((), jnp.int32)
        ...         return self.frame(t), t
        ...     def step(self, t, action):
        ...         no = jnp.zeros((), bool)
        ...         return F.Step(self.frame(t + 1), t + 1, jnp.zeros(()), no, no, {})
        >>> env = F.GrayscaleObservation(Pixels())
        >>> obs, _ = env.reset(jax.random.key(0))
        >>> obs.shape, int(obs[0, 0])  # 0.2125 * 40 + 0.7154 * 20 + 0.0721 * 50 = 26.4
        ((4, 6), 26)
    """

    def __init__(self, env: FunctionalEnv, keep_dim: bool = False) -> None:
        super().__init__(env)
        self._image = grayscale_map(wrapper_name(self), env.observation_space, keep_dim)
        self._space = self._image.space
        self.keep_dim = keep_dim


class ResizeObservation(_ImageMap):
    """Resize image observations to ``shape`` (OpenCV's ``INTER_AREA`` filter
    within 1 by default, or ``interpolation="bilinear"``), jittable.

    Same arguments and spaces as :class:`anywrap.ResizeObservation`.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym
        >>> from gymnasium.vector import AutoresetMode
        >>> from anywrap import functional as F
        >>> class Ramp:  # two envs, each a 4x6 gray frame whose columns go 0, 50, ..., 250
        ...     observation_space = gym.spaces.Box(0, 255, (4, 6), "uint8")
        ...     action_space = gym.spaces.Discrete(2)
        ...     num_envs, autoreset_mode = 2, AutoresetMode.DISABLED
        ...     frame = jnp.broadcast_to(jnp.arange(0, 300, 50, dtype=jnp.uint8), (2, 4, 6))
        ...     def reset(self, key):
        ...         return self.frame, jnp.zeros((), jnp.int32)
        ...     def step(self, t, action):
        ...         no = jnp.zeros(2, bool)
        ...         return F.Step(self.frame, t + 1, jnp.zeros(2), no, no, {})
        >>> env = F.ResizeObservation(Ramp(), (2, 3))
        >>> obs, _ = env.reset(jax.random.key(0))
        >>> env.observation_space, obs[0].tolist()  # each pixel the mean of a 2x2 block
        (Box(0, 255, (2, 3), uint8), [[25, 125, 225], [25, 125, 225]])
    """

    def __init__(
        self, env: FunctionalEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        super().__init__(env)
        self._image = resize_map(wrapper_name(self), env.observation_space, shape, interpolation)
        self._space = self._image.space
        self.shape, self.interpolation = self._space.shape[:2], interpolation


class FrameStackState(NamedTuple):
    """State of :class:`FrameStackObservation`: the inner state and the frame rings."""

    inner: Any
    frames: frames.FrameStack


class FrameStackObservation(Wrapper):
    """Stack the last ``stack_size`` observations, oldest first, jittable.

    Same arguments, space and padding as :class:`anywrap.FrameStackObservation`
    (``padding_type`` ``"reset"``, ``"zero"`` or an observation). Over a
    SAME_STEP env (one that resets itself, e.g. under :class:`AutoReset`) a
    done env's stack restarts with its new episode and ``info["final_obs"]``
    becomes the stack its episode ended on. ``reset`` restarts every stack.

    The frames are a ring buffer in :class:`FrameStackState`: each step writes
    one frame per env and reads the stacks with one gather.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.FrameStackObservation(bare, 3)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.observation_space.shape, obs.shape
        ((3, 3), (2, 3, 3))
        >>> bool((obs[:, 0] == obs[:, 2]).all())  # padded with the reset observation
        True
        >>> first = obs[:, 2]
        >>> obs, state, *_ = env.step(state, jnp.zeros((2, 1)))
        >>> bool((obs[:, 1] == first).all())  # the newest last: the reset one moved back
        True
    """

    def __init__(
        self, env: FunctionalEnv, stack_size: int, *, padding_type: str | Any = "reset"
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.stack_size = check_positive_int(name, "stack_size", stack_size, 1)
        space = box_space(name, env.observation_space)
        self.padding_type, self.padding_value = padding_of(name, space, padding_type)
        self._frame = tuple(space.shape)
        self._dtype = space.dtype
        self._space = batch_space(space, n=self.stack_size)
        self._first = self.padding_type == "reset"

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self._space

    def _rows(self, x: Any) -> Any:
        return x if batch_ndim(self.env) else x[None]

    def _unrows(self, x: Any) -> Any:
        return x if batch_ndim(self.env) else x[0]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        rows = self._rows(obs)
        pad = None if self._first else self.padding_value
        state = frames.init_frame_stack(
            rows.shape[0], self.stack_size, self._frame, xp=jnp, dtype=self._dtype, padding=pad
        )
        state, out = frames.reset_frame_stack(state, rows, pad_with_first=self._first)
        return self._unrows(out), FrameStackState(inner, state)

    def step(self, state: FrameStackState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        push = partial(frames.push_frame, pad_with_first=self._first)
        if self.env.autoreset_mode == AutoresetMode.SAME_STEP and "final_obs" in info:
            done = self._rows(jnp.logical_or(terminated, truncated))
            st, out, final = frames.push_frame_with_final(
                state.frames,
                self._rows(obs),
                self._rows(info["final_obs"]),
                done,
                pad_with_first=self._first,
            )
            info = {**info, "final_obs": self._unrows(final)}
        elif self.env.autoreset_mode == AutoresetMode.SAME_STEP:  # resets, no final_obs
            done = self._rows(jnp.logical_or(terminated, truncated))
            st, out = push(state.frames, self._rows(obs), start=done)
        else:
            st, out = push(state.frames, self._rows(obs))
        return Step(
            self._unrows(out), FrameStackState(inner, st), reward, terminated, truncated, info
        )
