"""FrameStackObservation for vector envs."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_env_kind
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

__all__ = ["FrameStackObservation"]

_NAME = "anywrap.vector.FrameStackObservation"


def _push(
    state: FrameStack,
    obs: Any,
    terminated: Any,
    truncated: Any,
    *,
    pad_with_first: bool,
    mode: AutoresetMode,
) -> tuple[FrameStack, Any]:
    """A step in the env's autoreset ``mode``: after a done, the next frame
    (NEXT_STEP) or this one (SAME_STEP) starts a new stack; DISABLED envs
    restart a stack only when reset."""
    done = terminated | truncated
    if mode is AutoresetMode.NEXT_STEP:
        return push_frame(state, obs, pad_with_first=pad_with_first, done=done)
    if mode is AutoresetMode.SAME_STEP:
        return push_frame(state, obs, pad_with_first=pad_with_first, start=done)
    return push_frame(state, obs, pad_with_first=pad_with_first)


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


class FrameStackObservation(InPlaceState, Shell, VectorWrapper):
    """Stacks each sub-env's last ``stack_size`` observations, on any array library.

    Gymnasium has no vector frame stack (its ``FrameStackObservation`` wraps
    one env). This one keeps the single wrapper's arguments and numbers for
    every sub-env, and handles each sub-env's episodes on its own, in every
    autoreset mode:

    * NEXT_STEP: the reset observation after a done starts a new stack.
    * SAME_STEP: a done sub-env's observation is its new episode's first, so
      its stack restarts at once; ``info["final_obs"]`` becomes the stack the
      episode ended on (its older frames and the final observation).
    * DISABLED, and ``reset(options={"reset_mask": m})`` in any mode: the
      sub-envs in ``m`` restart; the others keep their stacks.

    The frames live in one ring buffer on the env's device: a step writes
    one frame per sub-env and reads the stacks out with one gather, with no
    host sync; on JAX it is one compiled call that updates the buffer in
    place. The buffer holds each frame once: ``stack_size`` frames per
    sub-env, plus one padding frame.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.FrameStackObservation(envs, 4)
        >>> envs.single_observation_space.shape
        (4, 4)
        >>> obs, _ = envs.reset(seed=0)
        >>> obs.shape, bool((obs[:, 0] == obs[:, 3]).all())
        ((2, 4, 4), True)

    Change logs:
     * v0.1.0 - Initially added: Gymnasium 1.4's single-env arguments, for vector envs.
    """

    def __init__(
        self, env: VectorEnv, stack_size: int, *, padding_type: str | Any = "reset"
    ) -> None:
        """Wrap ``env`` (a Box single observation space).

        Args:
            env: The vector env to wrap.
            stack_size: How many observations to stack (at least 1).
            padding_type: ``"reset"``, ``"zero"`` or an observation of the
                single observation space.
        """
        gym.utils.RecordConstructorArgs.__init__(
            self, stack_size=stack_size, padding_type=padding_type
        )
        check_env_kind(self, env)
        stack_size = check_positive_int(_NAME, "stack_size", stack_size, 1)
        space = box_space(_NAME, env.single_observation_space)
        self._mode = autoreset_mode(_NAME, env)
        kind, self.padding_value = padding_of(_NAME, space, padding_type)
        VectorWrapper.__init__(self, env)
        self.single_observation_space = batch_space(space, n=stack_size)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.stack_size, self.padding_type = stack_size, kind
        self._ranges = {"newest": (0, stack_size - 1), "count": (0, stack_size)}
        self._batch = (self.num_envs, *space.shape)
        custom = None if kind == "reset" else self.padding_value
        self._state = init_frame_stack(
            self.num_envs, stack_size, space.shape, xp=np, dtype=space.dtype, padding=custom
        )
        first = kind == "reset"
        self._transforms = compiled(
            {
                "reset": partial(reset_frame_stack, pad_with_first=first),
                "step": partial(_push, pad_with_first=first, mode=self._mode),
                "final": partial(_push_final, pad_with_first=first),
            },
            donate=("reset", "step", "final"),
        )

    @property
    def bytes_per_env(self) -> float:
        """Bytes of frame storage per sub-env (its ring, and its share of the padding frame)."""
        frames = self._state.frames
        itemsize = np.dtype(self.single_observation_space.dtype).itemsize
        return float(frames.shape[0] * int(np.prod(frames.shape[1:])) * itemsize) / self.num_envs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the sub-envs reset (all, or those of ``reset_mask``) start a new stack."""
        obs, info, mask = self._masked_reset(seed, options)
        check_frames(self, obs, self._batch)
        return self._run(self._transforms["reset"], obs, obs, mask), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and append each sub-env's observation to its stack."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        check_frames(_NAME, obs, self._batch)
        term, trunc = self._mask_for(terminated, obs), self._mask_for(truncated, obs)
        final = info.get("final_obs") if self._mode is AutoresetMode.SAME_STEP else None
        if final is None:
            return (
                self._run(self._transforms["step"], obs, obs, term, trunc),
                reward,
                terminated,
                truncated,
                info,
            )
        rows, packed = final_obs_batch(info, obs, self.env.single_observation_space, self.num_envs)
        check_frames(_NAME, rows, self._batch, what="final observations")
        rows = self._mask_for(rows, obs)
        out, stacks = self._run(self._transforms["final"], obs, obs, rows, term, trunc)
        info = pack_final_obs(info, stacks, packed)
        return out, reward, terminated, truncated, info
