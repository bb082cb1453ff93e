"""TimeLimit for vector envs (Gymnasium has none)."""

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import is_packed
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, step_values
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.time import AUTORESET, check_max_episode_steps
from anywrap.transforms import time_limit as T
from anywrap.tree import tree_map


class TimeLimit(Shell, VectorWrapper):
    """:class:`anywrap.TimeLimit` for a vector env (Gymnasium has none), one count per
    sub-env on its device. The env must take ``reset(options={"reset_mask": m})`` (on a
    device, with an empty mask too): it restarts the sub-envs the limit ends.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.TimeLimit(gym.make_vec("Pendulum-v1", 2), max_episode_steps=3)
        >>> _ = envs.reset(seed=0)
        >>> [envs.step(envs.action_space.sample())[3].tolist() for _ in range(4)]
        [[False, False], [False, False], [True, True], [False, False]]
    """

    def __init__(self, env: VectorEnv, max_episode_steps: int) -> None:
        name, batch = self._start(env, max_episode_steps=max_episode_steps)
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        self._wrap(env)
        self._max_episode_steps = max_episode_steps
        self._mode = autoreset_mode(name, env)
        self.max_episode_steps = max_episode_steps
        self._steps = 0  # steps since the last full reset: no count exceeds it
        self._state = T.init_limit(batch, xp=np)
        limit: dict[str, Any] = {"max_steps": max_episode_steps, "autoreset": AUTORESET[self._mode]}
        self._transforms = compiled(
            {
                "step": partial(T.limit_step, **limit),
                "restart": partial(T.restart_step, **limit),
                "same_step": T.restart_same_step,
                "reset": with_no_output(T.reset_limit),
            }
        )

    @property
    def elapsed_steps(self) -> Any:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.clock.elapsed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask)
        if mask is None:
            self._steps = 0
        return obs, info

    def _may_reset(self, mask: Any) -> bool:
        if xp.is_host(mask):
            return bool(np.any(mask))
        return self._steps >= self._max_episode_steps

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        step_values("anywrap.vector.TimeLimit", reward, terminated, truncated, self.num_envs)
        pending = self._state_for(obs).pending
        if self._mode is AutoresetMode.NEXT_STEP and self._may_reset(pending):
            fresh, _ = self.env.reset(options={"reset_mask": pending})
            obs, reward, terminated, truncated = self._run(
                self._transforms["restart"], obs, fresh, obs, reward, terminated, truncated
            )
        else:
            truncated = self._run(self._transforms["step"], obs, terminated, truncated)
        self._steps += 1
        if self._mode is AutoresetMode.SAME_STEP and self._may_reset(self._state.pending):
            obs, info = self._restart_now(obs, info)
        return obs, reward, terminated, truncated, info

    def _restart_now(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        forced = self._state.pending
        fresh, _ = self.env.reset(options={"reset_mask": forced})
        info = dict(info)
        final = info.get("final_obs")
        packed = is_packed(final) or (final is None and xp.is_host(forced))
        batch = obs if packed or final is None else final
        mask = None if packed else info.get("_final_obs")
        new_obs, final, mask = self._run(
            self._transforms["same_step"], obs, fresh, obs, batch, mask
        )
        if packed:  # Gymnasium's host layout: an object array, None where not done
            final = (
                np.full(self.num_envs, None, dtype=object)
                if info.get("final_obs") is None
                else info["final_obs"].copy()
            )
            for i in np.flatnonzero(forced):
                final[i] = tree_map(lambda x, i=i: x[i], obs)
            mask = np.logical_or(info.get("_final_obs", False), forced)
        info["final_obs"], info["_final_obs"] = final, mask
        return new_obs, info
