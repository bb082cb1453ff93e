"""FrameStackObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind
from anywrap.shell.compiled import compiled
from anywrap.shell.images import (
    InPlaceState,
    box_space,
    check_frames,
    check_positive_int,
    padding_of,
)
from anywrap.transforms.frame_stack_observation import (
    FrameStack,
    init_frame_stack,
    push_frame,
    reset_frame_stack,
)

__all__ = ["FrameStackObservation"]

_NAME = "anywrap.FrameStackObservation"


def _reset_one(state: FrameStack, obs: Any, *, pad_with_first: bool) -> tuple[FrameStack, Any]:
    state, out = reset_frame_stack(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


def _push_one(state: FrameStack, obs: Any, *, pad_with_first: bool) -> tuple[FrameStack, Any]:
    state, out = push_frame(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


class FrameStackObservation(InPlaceState, Shell, gym.Wrapper):
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

    def __init__(self, env: gym.Env, stack_size: int, *, padding_type: str | Any = "reset") -> None:
        """Wrap ``env`` (a Box observation space).

        Args:
            env: The env to wrap.
            stack_size: How many observations to stack (at least 1).
            padding_type: ``"reset"``, ``"zero"`` or an observation of the env's space.
        """
        gym.utils.RecordConstructorArgs.__init__(
            self, stack_size=stack_size, padding_type=padding_type
        )
        check_env_kind(self, env)
        stack_size = check_positive_int(_NAME, "stack_size", stack_size, 1)
        space = box_space(_NAME, env.observation_space)
        kind, self.padding_value = padding_of(_NAME, space, padding_type)
        gym.Wrapper.__init__(self, env)
        self.observation_space = batch_space(space, n=stack_size)
        self.stack_size, self.padding_type = stack_size, kind
        self._ranges = {"newest": (0, stack_size - 1), "count": (0, stack_size)}
        self._frame = tuple(space.shape)
        custom = None if kind == "reset" else self.padding_value
        self._state = init_frame_stack(
            1, stack_size, self._frame, xp=np, dtype=space.dtype, padding=custom
        )
        first = kind == "reset"
        self._transforms = compiled(
            {
                "reset": partial(_reset_one, pad_with_first=first),
                "step": partial(_push_one, pad_with_first=first),
            },
            donate=("reset", "step"),
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the stack is the reset observation after ``stack_size - 1`` paddings."""
        obs, info = self.env.reset(seed=seed, options=options)
        check_frames(_NAME, obs, self._frame)
        return self._run(self._transforms["reset"], obs, obs), info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step and append the observation to the stack."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        check_frames(_NAME, obs, self._frame)
        return self._run(self._transforms["step"], obs, obs), reward, terminated, truncated, info
