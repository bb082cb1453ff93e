"""Image wrappers for vector envs: GrayscaleObservation, ResizeObservation,
FrameStackObservation, MaxAndSkipObservation."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap import xp as axp
from anywrap.shell.arrays import MapsObservations, map_both
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode
from anywrap.shell.images import (
    ImageMap,
    VectorFrames,
    box_space,
    check_frames,
    check_positive_int,
    final_rows,
    grayscale_map,
    pack_final,
    padding_of,
    resize_map,
)
from anywrap.transforms.frames import (
    FrameStack,
    init_frame_stack,
    init_max_frames,
    max_and_skip,
    push_frame,
    push_frame_with_final,
    reset_frame_stack,
    reset_max_frames,
)

__all__ = [
    "FrameStackObservation",
    "GrayscaleObservation",
    "MaxAndSkipObservation",
    "ResizeObservation",
]


class _ImageTransform(MapsObservations, VectorWrapper):
    """A stateless image map of every batch of observations, and of ``info["final_obs"]``
    (a batch of them in the same compiled call)."""

    _NAME: str

    def _wrap(self, env: VectorEnv, image: ImageMap) -> None:
        VectorWrapper.__init__(self, env)
        autoreset_mode(self._NAME, env)
        self.single_observation_space = image.space
        self.observation_space = batch_space(image.space, self.num_envs)
        self._in_shape = image.in_shape
        self._fn = axp.Compiled(image.fn)
        self._both = axp.Compiled(partial(map_both, image.fn))

    def _check(self, obs: Any, batch: tuple[int, ...], what: str = "an observation") -> None:
        check_frames(self._NAME, obs, (*batch, *self._in_shape), dtype="uint8", what=what)

    def observations(self, observations: Any) -> Any:
        """The batch of frames mapped."""
        return self._fn(observations)

    def _observations_and_final(self, obs: Any, final: Any) -> tuple[Any, Any]:
        out, final = self._both(obs, final)
        return out, final


class GrayscaleObservation(_ImageTransform, Shell):
    """Converts a vector env's RGB image observations to grayscale, on any array library.

    Drop-in for :class:`gymnasium.wrappers.vector.GrayscaleObservation` (same
    arguments, spaces and numbers, bit for bit); one batched call instead of
    a loop over the sub-envs, and every autoreset mode (Gymnasium's refuses
    SAME_STEP; here ``info["final_obs"]`` is converted too).

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.GrayscaleObservation(envs)
        >>> envs.observation_space
        Box(0, 255, (2, 210, 160), uint8)
        >>> envs.reset(seed=0)[0].shape
        (2, 210, 160)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.vector.GrayscaleObservation"

    def __init__(self, env: VectorEnv, keep_dim: bool = False) -> None:
        """Wrap ``env``, whose single observation space is a uint8 ``(H, W, 3)`` Box (0 to 255).

        Args:
            env: The vector env to wrap.
            keep_dim: Keep a channel axis of size 1.
        """
        image = grayscale_map(self._NAME, env.single_observation_space, keep_dim)
        self._wrap(env, image)
        self.keep_dim = keep_dim


class ResizeObservation(_ImageTransform, Shell):
    """Resizes a vector env's image observations, on any array library.

    Drop-in for :class:`gymnasium.wrappers.vector.ResizeObservation` (same
    arguments and spaces), resizing the whole batch in one call. The default
    filter is Gymnasium's (OpenCV's ``INTER_AREA``; exact on NumPy, within 1
    on JAX and PyTorch); ``interpolation="bilinear"`` takes each backend's own
    antialiased resize instead. Every autoreset mode works.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ResizeObservation(envs, (84, 84))
        >>> envs.reset(seed=0)[0].shape
        (2, 84, 84, 3)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    _NAME = "anywrap.vector.ResizeObservation"

    def __init__(
        self, env: VectorEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        """Wrap ``env``, whose single observation space is a uint8 image Box (0 to 255);
        ``shape`` and ``interpolation`` as for :class:`anywrap.ResizeObservation`."""
        image = resize_map(self._NAME, env.single_observation_space, shape, interpolation)
        self._wrap(env, image)
        self.shape, self.interpolation = image.space.shape[:2], interpolation


# ---------------------------------------------------------------- frame stack
def _push_next_step(
    state: FrameStack, obs: Any, terminated: Any, truncated: Any, *, pad_with_first: bool
) -> Any:
    return push_frame(state, obs, pad_with_first=pad_with_first, done=terminated | truncated)


def _push_same_step(
    state: FrameStack, obs: Any, terminated: Any, truncated: Any, *, pad_with_first: bool
) -> Any:
    return push_frame(state, obs, pad_with_first=pad_with_first, start=terminated | truncated)


def _push_disabled(
    state: FrameStack, obs: Any, terminated: Any, truncated: Any, *, pad_with_first: bool
) -> Any:
    return push_frame(state, obs, pad_with_first=pad_with_first)


def _push_final(
    state: FrameStack,
    obs: Any,
    final: Any,
    terminated: Any,
    truncated: Any,
    *,
    pad_with_first: bool,
) -> Any:
    return push_frame_with_final(
        state, obs, final, terminated | truncated, pad_with_first=pad_with_first
    )


class FrameStackObservation(VectorFrames, VectorWrapper, Shell):
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

    _NAME = "anywrap.vector.FrameStackObservation"

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
        VectorWrapper.__init__(self, env)
        stack_size = check_positive_int(self._NAME, "stack_size", stack_size, 1)
        space = box_space(self._NAME, env.single_observation_space)
        self._mode = autoreset_mode(self._NAME, env)
        kind, self.padding_value = padding_of(self._NAME, space, padding_type)
        self.single_observation_space = batch_space(space, n=stack_size)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.stack_size = stack_size
        self.padding_type = kind
        self._frame_shape = tuple(space.shape)
        custom = self.padding_value if kind != "reset" else None
        self._state = init_frame_stack(
            self.num_envs, stack_size, self._frame_shape, xp=np, dtype=space.dtype, padding=custom
        )
        first = kind == "reset"
        self._reset = axp.Compiled(partial(reset_frame_stack, pad_with_first=first), donate=True)
        push = {
            AutoresetMode.NEXT_STEP: _push_next_step,
            AutoresetMode.SAME_STEP: _push_same_step,
            AutoresetMode.DISABLED: _push_disabled,
        }[self._mode]
        self._push = axp.Compiled(partial(push, pad_with_first=first), donate=True)
        self._push_final = axp.Compiled(partial(_push_final, pad_with_first=first), donate=True)

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
        obs, info, mask = self._reset_env(seed, options)
        self._state, out = self._reset(self._state, obs, mask)
        return out, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and append each sub-env's observation to its stack."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        self._check_batch(obs)
        final = info.get("final_obs") if self._mode is AutoresetMode.SAME_STEP else None
        if final is not None:
            rows = final_rows(final, info["_final_obs"], obs)
            self._check_batch(rows, what="final observations")
        self._follow(obs)
        term, trunc = self._like_state(terminated), self._like_state(truncated)
        if final is None:
            self._state, out = self._push(self._state, obs, term, trunc)
            return out, reward, terminated, truncated, info
        rows = self._like_state(rows)
        self._state, out, stacks = self._push_final(self._state, obs, rows, term, trunc)
        info = {**info, "final_obs": pack_final(final, stacks, info["_final_obs"])}
        return out, reward, terminated, truncated, info


# ------------------------------------------------------------- max and skip
class MaxAndSkipObservation(VectorFrames, VectorWrapper, Shell):
    """Repeats each action ``skip`` times over a vector env; returns each sub-env's
    maximum of its last two frames and its summed reward, on any array library.

    Gymnasium has no vector version. Each sub-env is treated as Gymnasium's
    ``MaxAndSkipObservation`` treats one env, but a vector env steps all its
    sub-envs together, so the ``skip`` steps always happen. Per sub-env:

    * its call ends at its first ``terminated`` / ``truncated``: the reward is
      summed up to that step, the flags are that step's, and the frames of
      the last two steps are kept only while the episode runs (an episode
      that ends early returns older frames, Gymnasium's quirk);
    * the steps after that end belong to its next episode (the vector env
      resets it): their reward is added to the next call's reward, so every
      episode's return is whole. In SAME_STEP mode the returned observation
      is the new episode's (the maximum of its frames among the last two
      steps) and ``info["final_obs"]`` the finished one's.

    An episode that starts and ends within one call (shorter than ``skip``
    steps) is not reported on its own. DISABLED envs are refused: a sub-env
    that ends within the skip would be stepped again before it is reset.
    ``info`` is the last step's (with ``final_obs`` / ``_final_obs`` for the
    whole call in SAME_STEP mode).
    Nothing is read on the host; on JAX each call is one compiled program
    besides the ``skip`` env steps.

    Example:
        >>> import ale_py, gymnasium as gym
        >>> import numpy as np
        >>> import anywrap
        >>> gym.register_envs(ale_py)
        >>> kw = {"num_envs": 2, "vectorization_mode": "sync", "frameskip": 1}
        >>> envs = anywrap.vector.MaxAndSkipObservation(gym.make_vec("ALE/Pong-v5", **kw), skip=4)
        >>> _ = envs.reset(seed=0)
        >>> obs, reward, *_ = envs.step(np.zeros(2, dtype=np.int64))  # 4 frames per sub-env
        >>> obs.shape, obs.dtype, reward
        ((2, 210, 160, 3), dtype('uint8'), array([0., 0.]))

    Change logs:
     * v0.1.0 - Initially added: Gymnasium 1.4's single-env wrapper, for vector envs.
    """

    _NAME = "anywrap.vector.MaxAndSkipObservation"

    def __init__(self, env: VectorEnv, skip: int = 4) -> None:
        """Wrap ``env`` (a Box single observation space).

        Args:
            env: The vector env to wrap.
            skip: How many times each action is repeated (at least 2).
        """
        VectorWrapper.__init__(self, env)
        self._skip = check_positive_int(self._NAME, "skip", skip, 2)
        space = box_space(self._NAME, env.single_observation_space)
        self._mode = autoreset_mode(self._NAME, env)
        if self._mode is AutoresetMode.DISABLED:
            raise ValueError(
                f"{self._NAME}: expected a vector env that resets itself (NEXT_STEP or "
                "SAME_STEP), got DISABLED: a sub-env whose episode ends within the skip "
                "would be stepped again before anyone resets it. Skip frames inside each "
                "sub-env instead (gymnasium.make_vec(..., wrappers=[MaxAndSkipObservation]))"
            )
        self._frame_shape = tuple(space.shape)
        self._state = init_max_frames((self.num_envs,), self._frame_shape, xp=np, dtype=space.dtype)
        self._fn = axp.Compiled(max_and_skip, donate=True)
        self._reset = axp.Compiled(reset_max_frames, donate=True)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the sub-envs reset (all, or those of ``reset_mask``) drop their pending reward."""
        obs, info, mask = self._reset_env(seed, options)
        self._state = self._reset(self._state, mask)
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step every sub-env ``skip`` times with ``actions``."""
        same = self._mode is AutoresetMode.SAME_STEP
        rewards, terms, truncs, frames, finals = [], [], [], [], []
        info: dict[str, Any] = {}
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(actions)
            self._check_batch(obs)
            rewards.append(reward)
            terms.append(terminated)
            truncs.append(truncated)
            if i >= self._skip - 2:
                frames.append(obs)
                if same:
                    final = info.get("final_obs")
                    if final is None:
                        finals.append(obs)
                    else:
                        finals.append(final_rows(final, info["_final_obs"], obs))
                        self._check_batch(finals[-1], what="final observations")
        self._follow(frames[-1])
        conv = self._like_state
        self._state, out = self._fn(
            self._state,
            tuple(conv(r) for r in rewards),
            tuple(conv(t) for t in terms),
            tuple(conv(t) for t in truncs),
            (frames[0], frames[1]),
            tuple(conv(f) for f in finals) if same else None,
        )
        if same:
            done = out.terminated | out.truncated
            if not axp.is_host(done):
                info = {**info, "final_obs": out.final_obs, "_final_obs": done}
            elif np.any(done):  # Gymnasium's host layout: entries where an episode ended
                layout = np.empty(self.num_envs, dtype=object)
                info = {**info, "final_obs": pack_final(layout, out.final_obs, done)}
                info["_final_obs"] = done
            else:
                info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}
        return out.obs, out.reward, out.terminated, out.truncated, info
