"""MaxAndSkipObservation for vector envs."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_env_kind
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.images import (
    InPlaceState,
    box_space,
    check_frames,
    check_positive_int,
)
from anywrap.transforms.max_and_skip_observation import (
    init_max_frames,
    max_and_skip,
    reset_max_frames,
)

__all__ = ["MaxAndSkipObservation"]

_NAME = "anywrap.vector.MaxAndSkipObservation"


class MaxAndSkipObservation(InPlaceState, Shell, VectorWrapper):
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

    def __init__(self, env: VectorEnv, skip: int = 4) -> None:
        """Wrap ``env`` (a Box single observation space).

        Args:
            env: The vector env to wrap.
            skip: How many times each action is repeated (at least 2).
        """
        gym.utils.RecordConstructorArgs.__init__(self, skip=skip)
        check_env_kind(self, env)
        self._skip = check_positive_int(_NAME, "skip", skip, 2)
        space = box_space(_NAME, env.single_observation_space)
        self._mode = autoreset_mode(_NAME, env)
        if self._mode is AutoresetMode.DISABLED:
            raise ValueError(
                f"{_NAME}: expected a vector env that resets itself (NEXT_STEP or "
                "SAME_STEP), got DISABLED: a sub-env whose episode ends within the skip "
                "would be stepped again before anyone resets it. Skip frames inside each "
                "sub-env instead (gymnasium.make_vec(..., wrappers=[MaxAndSkipObservation]))"
            )
        VectorWrapper.__init__(self, env)
        self._batch = (self.num_envs, *space.shape)
        self._state = init_max_frames((self.num_envs,), space.shape, xp=np, dtype=space.dtype)
        self._transforms = compiled(
            {"reset": with_no_output(reset_max_frames), "step": max_and_skip},
            donate=("reset", "step"),
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the sub-envs reset (all, or those of ``reset_mask``) drop their pending reward."""
        obs, info, mask = self._masked_reset(seed, options)
        check_frames(self, obs, self._batch)
        self._run(self._transforms["reset"], obs, mask)
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step every sub-env ``skip`` times with ``actions``."""
        same = self._mode is AutoresetMode.SAME_STEP
        rewards, terms, truncs, frames, finals = [], [], [], [], []
        n = self.num_envs
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(actions)
            check_frames(_NAME, obs, self._batch)
            rewards.append(reward)
            terms.append(terminated)
            truncs.append(truncated)
            if i >= self._skip - 2:
                frames.append(obs)
                if same:
                    final = obs
                    if info.get("final_obs") is not None:
                        final, _ = final_obs_batch(info, obs, self.single_observation_space, n)
                    check_frames(_NAME, final, self._batch, what="final observations")
                    finals.append(final)

        def like(x: Any) -> Any:  # the flags and rewards where the state is
            return self._mask_for(x, obs)

        out = self._run(
            self._transforms["step"],
            obs,
            tuple(map(like, rewards)),
            tuple(map(like, terms)),
            tuple(map(like, truncs)),
            (frames[0], frames[1]),
            tuple(map(like, finals)) if same else None,
        )
        if same:
            done = out.terminated | out.truncated
            if not xp.is_host(done):
                info = {**info, "final_obs": out.final_obs, "_final_obs": done}
            elif np.any(done):  # Gymnasium's host layout: entries where an episode ended
                info = pack_final_obs({**info, "_final_obs": done}, out.final_obs, True)
            else:
                info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}
        return out.obs, out.reward, out.terminated, out.truncated, info
