"""TimeLimit for vector envs (Gymnasium has none)."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import is_packed
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_env_kind, step_values
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.time import AUTORESET, check_max_episode_steps
from anywrap.transforms.time_limit import (
    init_limit,
    limit_step,
    reset_limit,
    restart_same_step,
    restart_step,
)
from anywrap.tree import tree_map

__all__ = ["TimeLimit"]

_NAME = "anywrap.vector.TimeLimit"


class TimeLimit(Shell, VectorWrapper):
    """Truncates each sub-env's episode once it has taken ``max_episode_steps`` steps.

    Gymnasium has no vector ``TimeLimit`` (it puts one inside each sub-env);
    this one counts every sub-env's steps in one array on the env's device,
    so it also serves batched device envs (JAX, torch) that have no limit of
    their own. ``truncated`` is or'ed with ``count >= max_episode_steps``.

    Counts restart with the episodes: on a ``reset`` (only the masked
    sub-envs for ``options={"reset_mask": m}``), and on the env's own
    autoresets, in each mode. When the limit ends an episode that the env
    did not end, the env must start a new one for that sub-env, and the
    wrapper asks it to with ``env.reset(options={"reset_mask": ...})``:

    * NEXT_STEP: on the next step, as the env would for its own ends. That
      step's row becomes the reset observation with reward 0 (the sub-env
      has also been stepped once more, and that result is dropped, except
      for whatever it put in ``info``).
    * SAME_STEP: at once; ``obs`` holds the new episode's first observation
      and ``info["final_obs"]`` (with the mask ``info["_final_obs"]``) the
      last one of the old.
    * DISABLED: the caller resets, as for any end in this mode.

    The env must accept ``reset_mask``. On the host the wrapper resets only
    when a sub-env needs it; on a device, where looking would be a host sync,
    it calls ``reset`` with the mask on every step once a count could have
    reached the limit (the env must accept a mask with no sub-env selected).
    So the results equal those of Gymnasium's sub-env ``TimeLimit`` on the
    same envs, for envs whose step does not draw from their random generator.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.TimeLimit(envs, max_episode_steps=3)
        >>> _ = envs.reset(seed=0)
        >>> [envs.step(envs.action_space.sample())[3].tolist() for _ in range(4)]
        [[False, False], [False, False], [True, True], [False, False]]

    Change logs:
     * v0.1.0 - Initially added.
    """

    def __init__(self, env: VectorEnv, max_episode_steps: int) -> None:
        """Wrap ``env``; ``max_episode_steps`` > 0."""
        gym.utils.RecordConstructorArgs.__init__(self, max_episode_steps=max_episode_steps)
        check_env_kind(self, env)
        max_episode_steps = check_max_episode_steps(_NAME, max_episode_steps)
        VectorWrapper.__init__(self, env)
        self._mode = autoreset_mode(_NAME, env)
        self.max_episode_steps = self._max_episode_steps = max_episode_steps
        self._steps = 0  # steps since the last full reset: no count exceeds it
        self._state = init_limit((self.num_envs,), xp=np)
        limit: dict[str, Any] = {"max_steps": max_episode_steps, "autoreset": AUTORESET[self._mode]}
        self._transforms = compiled(
            {
                "step": partial(limit_step, **limit),
                "restart": partial(restart_step, **limit),
                "same_step": restart_same_step,
                "reset": with_no_output(reset_limit),
            }
        )

    @property
    def elapsed_steps(self) -> Any:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.clock.elapsed

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; restart the counts of the sub-envs reset (all, without a ``reset_mask``)."""
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask)
        if mask is None:
            self._steps = 0
        return obs, info

    def _may_reset(self, mask: Any) -> bool:
        """Whether to ask the env for a masked reset (host: look; device: whenever possible)."""
        if xp.is_host(mask):
            return bool(np.any(mask))
        return self._steps >= self._max_episode_steps

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step; truncate the episodes that reach the limit (and have the env reset them)."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        step_values(_NAME, reward, terminated, truncated, self.num_envs)
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
        """SAME_STEP: reset the sub-envs the limit ended now; their last observation goes
        to ``info["final_obs"]``."""
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
