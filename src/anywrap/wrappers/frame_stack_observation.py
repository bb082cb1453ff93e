"""FrameStackObservation for a single env, and the class both shells share."""

from functools import partial
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode
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
    push_frame_with_final,
    reset_frame_stack,
)


def _reset_one(state: FrameStack, obs: Any, *, pad_with_first: bool) -> tuple[FrameStack, Any]:
    state, out = reset_frame_stack(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


def _push_one(state: FrameStack, obs: Any, *, pad_with_first: bool) -> tuple[FrameStack, Any]:
    state, out = push_frame(state, obs[None, ...], pad_with_first=pad_with_first)
    return state, out[0, ...]


def _push(
    state: FrameStack, obs: Any, terminated: Any, truncated: Any, *, pad_with_first: bool, mode: Any
) -> tuple[FrameStack, Any]:
    """A vector step: after a done, the next frame (NEXT_STEP) or this one (SAME_STEP)
    starts a new stack; DISABLED envs restart a stack only when reset."""
    done = terminated | truncated
    when = {AutoresetMode.NEXT_STEP: {"done": done}, AutoresetMode.SAME_STEP: {"start": done}}
    return push_frame(state, obs, pad_with_first=pad_with_first, **when.get(mode, {}))


def _push_final(
    state: FrameStack,
    obs: Any,
    final: Any,
    terminated: Any,
    truncated: Any,
    *,
    pad_with_first: bool,
) -> tuple[FrameStack, tuple[Any, Any]]:
    """A SAME_STEP step with final observations: ``(stacks, final stacks)``."""
    done = terminated | truncated
    state, out, final = push_frame_with_final(
        state, obs, final, done, pad_with_first=pad_with_first
    )
    return state, (out, final)


class FrameStackShell(InPlaceState, Shell):
    """What the single and vector FrameStackObservation share: the constructor."""

    def __init__(self, env: Any, stack_size: int, *, padding_type: str | Any = "reset") -> None:
        name, batch = self._start(env, stack_size=stack_size, padding_type=padding_type)
        stack_size = check_positive_int(name, "stack_size", stack_size, 1)
        space = box_space(name, self._single_space(env))
        kind, self.padding_value = padding_of(name, space, padding_type)
        self._wrap(env, batch_space(space, n=stack_size))
        self.stack_size, self.padding_type = stack_size, kind
        self._ranges = {"newest": (0, stack_size - 1), "count": (0, stack_size)}
        self._shape = (*batch, *space.shape)
        custom = None if kind == "reset" else self.padding_value
        n = batch[0] if batch else 1  # one env: a batch of one
        self._state = init_frame_stack(
            n, stack_size, space.shape, xp=np, dtype=space.dtype, padding=custom
        )
        fns: dict[str, Any] = {"reset": _reset_one, "step": _push_one}
        if batch:
            self._mode = autoreset_mode(name, env)
            step = partial(_push, mode=self._mode)
            fns = {"reset": reset_frame_stack, "step": step, "final": _push_final}
        first = kind == "reset"
        transforms: dict[str, Any] = {k: partial(fn, pad_with_first=first) for k, fn in fns.items()}
        self._transforms = compiled(transforms, donate=tuple(transforms))


class FrameStackObservation(FrameStackShell, gym.Wrapper):
    """Stacks the last ``stack_size`` observations, oldest first, in a ring on the env's
    device: :class:`gymnasium.wrappers.FrameStackObservation` (Box spaces).

    Args:
        env: An env with a Box observation space.
        stack_size: How many observations to stack (at least 1).
        padding_type: ``"reset"``, ``"zero"`` or an observation of the env's space.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.FrameStackObservation(gym.make("CartPole-v1"), 3, padding_type="zero")
        >>> env.reset(seed=123)[0][:, 0]
        array([0.        , 0.        , 0.01823519], dtype=float32)
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        check_frames(self, obs, self._shape)
        return self._run(self._transforms["reset"], obs, obs), info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        check_frames(self, obs, self._shape)
        return self._run(self._transforms["step"], obs, obs), reward, terminated, truncated, info
