"""FrameStackObservation for functional envs: the last ``stack_size`` observations, jittable."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import wrapper_name
from anywrap.shell.images import box_space, check_positive_int, padding_of
from anywrap.transforms.frame_stack_observation import (
    FrameStack,
    init_frame_stack,
    push_frame,
    push_frame_with_final,
    reset_frame_stack,
)

from .core import FunctionalEnv, Step, Wrapper, as_rows, from_rows, same_step

__all__ = ["FrameStackObservation", "FrameStackState"]


class FrameStackState(NamedTuple):
    """State of :class:`FrameStackObservation`: the inner state and the frame rings."""

    inner: Any
    frames: FrameStack


class FrameStackObservation(Wrapper):
    """Stack the last ``stack_size`` observations, oldest first, as
    :class:`anywrap.FrameStackObservation` does; the frames are a ring in the state.

    Over a SAME_STEP env a done env's stack restarts with its new episode and
    ``info["final_obs"]`` is the stack its episode ended on.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.FrameStackObservation(bare, 3)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.observation_space.shape, obs.shape
        ((3, 3), (2, 3, 3))
        >>> first = obs[:, 2]
        >>> bool((obs[:, 0] == first).all())  # padded with the reset observation
        True
        >>> obs, state, *_ = env.step(state, jnp.zeros((2, 1)))
        >>> bool((obs[:, 1] == first).all())  # the newest last
        True
    """

    state_type = FrameStackState
    per_env_fields = ("frames",)

    def __init__(
        self, env: FunctionalEnv, stack_size: int, *, padding_type: str | Any = "reset"
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.stack_size = check_positive_int(name, "stack_size", stack_size, 1)
        space = box_space(name, env.observation_space)
        self.padding_type, self.padding_value = padding_of(name, space, padding_type)
        self._frame, self._dtype = tuple(space.shape), space.dtype
        self._space = batch_space(space, n=self.stack_size)
        self._first = self.padding_type == "reset"

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        rows = as_rows(self.env, obs)
        pad = None if self._first else self.padding_value
        state = init_frame_stack(
            rows.shape[0], self.stack_size, self._frame, xp=jnp, dtype=self._dtype, padding=pad
        )
        state, out = reset_frame_stack(state, rows, pad_with_first=self._first)
        return from_rows(self.env, out), FrameStackState(inner, state)

    def step(self, state: FrameStackState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        rows = as_rows(self.env, obs)
        if not same_step(self.env):
            st, out = push_frame(state.frames, rows, pad_with_first=self._first)
        else:
            done = as_rows(self.env, jnp.logical_or(terminated, truncated))
            if "final_obs" in info:
                final = as_rows(self.env, info["final_obs"])
                st, out, final = push_frame_with_final(
                    state.frames, rows, final, done, pad_with_first=self._first
                )
                info = {**info, "final_obs": from_rows(self.env, final)}
            else:
                st, out = push_frame(state.frames, rows, start=done, pad_with_first=self._first)
        out = from_rows(self.env, out)
        return Step(out, FrameStackState(inner, st), reward, terminated, truncated, info)
