"""TimeAwareObservation for vector envs (Gymnasium has none)."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import box_check, checked, final_obs_batch, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_env_kind, whole_number
from anywrap.shell.compiled import compiled
from anywrap.shell.time import AUTORESET, find_max_steps, time_aware_space
from anywrap.transforms.time_aware_observation import time_aware, time_aware_reset
from anywrap.transforms.time_limit import init_clock

__all__ = ["TimeAwareObservation"]

_NAME = "anywrap.vector.TimeAwareObservation"


class TimeAwareObservation(Shell, VectorWrapper):
    """Adds each sub-env's episode step count to its observation, counted on the env's device.

    Gymnasium has no vector ``TimeAwareObservation``; this one gives, row by
    row, what a Gymnasium vector env of sub-envs wrapped in
    :class:`gymnasium.wrappers.TimeAwareObservation` gives, quirks included
    (see :class:`anywrap.TimeAwareObservation`), in every autoreset mode: a
    NEXT_STEP reset step shows time 0; in SAME_STEP mode the new episode's
    observation shows 0 and ``info["final_obs"]`` the old episode's last count;
    ``reset(options={"reset_mask": m})`` restarts the masked counts.

    ``max_timesteps`` comes from ``env.spec.max_episode_steps`` (``make_vec``
    sets it) or an ``anywrap.vector.TimeLimit`` in the stack; the keyword
    ``max_timesteps`` sets it for envs that have neither.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.TimeAwareObservation(envs, normalize_time=True)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[0][:, -1]
        array([0.002, 0.002], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(
        self,
        env: VectorEnv,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        """Wrap ``env``; see :class:`anywrap.TimeAwareObservation` for the arguments."""
        gym.utils.RecordConstructorArgs.__init__(
            self,
            flatten=flatten,
            normalize_time=normalize_time,
            dict_time_key=dict_time_key,
            max_timesteps=max_timesteps,
        )
        check_env_kind(self, env)
        single = env.single_observation_space
        steps = (
            find_max_steps(_NAME, env)
            if max_timesteps is None
            else whole_number(_NAME, "max_timesteps", max_timesteps, 1)
        )
        space, feature = time_aware_space(
            _NAME, single, steps, normalize_time, dict_time_key, flatten, batch_ndim=1
        )
        VectorWrapper.__init__(self, env)
        self._mode = autoreset_mode(_NAME, env)
        self.single_observation_space = space
        self.observation_space = batch_space(space, self.num_envs)
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps
        self._check = box_check(_NAME, single, self.num_envs)
        self._state = init_clock((self.num_envs,), xp=np)
        self._transforms = compiled(
            {
                "step": partial(time_aware, feature=feature, autoreset=AUTORESET[self._mode]),
                "reset": partial(time_aware_reset, feature=feature),
            }
        )

    @property
    def timesteps(self) -> Any:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.elapsed

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; restart the counts of the sub-envs reset (all, without a ``reset_mask``)."""
        obs, info, mask = self._masked_reset(seed, options)
        return self._run(self._transforms["reset"], obs, checked(self._check, obs), mask), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and add each sub-env's new count to its observation."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        if self._mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            single = self.env.single_observation_space
            final, packed = final_obs_batch(info, obs, single, self.num_envs)
            out, final = self._run(self._transforms["step"], obs, obs, terminated, truncated, final)
            info = pack_final_obs(info, final, packed)
        else:
            out, _ = self._run(self._transforms["step"], obs, obs, terminated, truncated)
        return out, reward, terminated, truncated, info
