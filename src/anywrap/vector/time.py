"""TimeLimit and TimeAwareObservation for vector envs (Gymnasium has neither)."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp as axp
from anywrap.shell.arrays import ResetsSubEnvs, final_obs_batch, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, wrapper_name
from anywrap.shell.time import CountsTime, check_max_episode_steps
from anywrap.transforms.time import (
    Clock,
    TimeFeature,
    init_clock,
    reset_clock,
    restart_now,
    restart_rows,
    select_rows,
    time_limit,
)
from anywrap.tree import tree_map

__all__ = ["TimeAwareObservation", "TimeLimit"]

_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


Array = Any


class LimitState(NamedTuple):
    """The vector :class:`TimeLimit`'s state."""

    clock: Clock
    pending: Array
    """Episodes the limit ended on the last step that the env must still reset (bool)."""


class TimeLimit(ResetsSubEnvs, VectorWrapper, Shell):
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
        name = "anywrap.vector.TimeLimit"
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        VectorWrapper.__init__(self, env)
        self._name = name
        self._mode = autoreset_mode(name, env)
        self.max_episode_steps = self._max_episode_steps = max_episode_steps
        mode = _MODES[self._mode]
        clock = init_clock((self.num_envs,), xp=np)
        self._state = LimitState(clock, np.zeros((self.num_envs,), dtype=bool))
        self._steps = 0  # steps since the last full reset: no count exceeds it
        self._step = axp.Compiled(partial(_limit, max_steps=max_episode_steps, autoreset=mode), 0)
        self._reset = axp.Compiled(_reset_limit, 0)
        self._restart = axp.Compiled(restart_rows, 0)
        self._select = axp.Compiled(select_rows, 0)
        self._restart_same_step = axp.Compiled(restart_now, 0)

    @property
    def elapsed_steps(self) -> Array:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.clock.elapsed

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; restart the counts of the sub-envs reset (all, without a ``reset_mask``)."""
        obs, info, mask = self._reset_env(seed, options)
        self._commit(self._reset(self._state_for(obs), mask), obs)
        if mask is None:
            self._steps = 0
        return obs, info

    def _may_reset(self, mask: Array) -> bool:
        """Whether to ask the env for a masked reset (host: look; device: whenever possible)."""
        if axp.is_host(mask):
            return bool(np.any(mask))
        return self._steps >= self._max_episode_steps

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step; truncate the episodes that reach the limit (and have the env reset them)."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        state = self._state_for(obs)
        if self._mode is AutoresetMode.NEXT_STEP:
            pending = state.pending
            if self._may_reset(pending):
                fresh, _ = self.env.reset(options={"reset_mask": pending})
                obs, reward, terminated, truncated = self._restart(
                    pending, fresh, obs, reward, terminated, truncated
                )
        self._steps += 1
        state, truncated = self._step(state, terminated, truncated)
        self._commit(state, obs)
        if self._mode is AutoresetMode.SAME_STEP:
            forced = state.pending
            if self._may_reset(forced):
                obs, info = self._restart_now(forced, obs, info)
        return obs, reward, terminated, truncated, info

    def _restart_now(self, forced: Array, obs: Any, info: dict[str, Any]) -> tuple[Any, dict]:
        """SAME_STEP: reset the sub-envs in ``forced`` now; their last observation
        goes to ``info["final_obs"]``."""
        fresh, _ = self.env.reset(options={"reset_mask": forced})
        info = dict(info)
        final = info.get("final_obs")
        packed = isinstance(final, np.ndarray) and final.dtype == object
        if packed or (final is None and axp.is_host(forced)):  # Gymnasium's host layout
            if final is None:
                final = np.full(self.num_envs, None, dtype=object)
            final = final.copy()
            done = np.zeros(self.num_envs, dtype=bool) | info.get("_final_obs", False)
            for i in np.flatnonzero(forced):
                final[i] = tree_map(lambda x, i=i: x[i], obs)
            info["final_obs"], info["_final_obs"] = final, done | forced
            return self._select(forced, fresh, obs), info
        obs, info["final_obs"], info["_final_obs"] = self._restart_same_step(
            forced, fresh, obs, info.get("final_obs", obs), info.get("_final_obs")
        )
        return obs, info


def _limit(
    state: LimitState, terminated: Array, truncated: Array, *, max_steps: int, autoreset: str
) -> tuple[LimitState, Array]:
    clock, truncated, forced = time_limit(
        state.clock, terminated, truncated, max_steps=max_steps, autoreset=autoreset
    )
    return LimitState(clock, forced), truncated


def _reset_limit(state: LimitState, mask: Array | None) -> LimitState:
    clock = reset_clock(state.clock, mask)
    xp = axp.namespace(state.pending)
    if mask is None:
        return LimitState(clock, xp.zeros_like(state.pending))
    return LimitState(clock, xp.logical_and(state.pending, xp.logical_not(mask)))


class TimeAwareObservation(ResetsSubEnvs, CountsTime, VectorWrapper, Shell):
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

    def _wrap(self, env: VectorEnv) -> tuple[gym.Space, int]:
        VectorWrapper.__init__(self, env)
        self._name = wrapper_name(self)
        self._mode = autoreset_mode(self._name, env)
        return env.single_observation_space, 1

    def _start(self, space: gym.Space, feature: TimeFeature) -> None:
        self.single_observation_space = space
        self.observation_space = gym.vector.utils.batch_space(space, self.num_envs)
        self._start_clock((self.num_envs,), feature, _MODES[self._mode])

    @property
    def timesteps(self) -> Array:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.elapsed

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and add each sub-env's new count to its observation."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        state = self._state_for(obs)
        if self._mode is AutoresetMode.SAME_STEP:
            final, packed = (
                final_obs_batch(info, obs, self.env.single_observation_space, self.num_envs)
                if "final_obs" in info
                else (obs, False)
            )
            state, out, final = self._step(state, obs, terminated, truncated, final)
            if "final_obs" in info:
                info = pack_final_obs(info, final, packed)
        else:
            state, out, _ = self._step(state, obs, terminated, truncated)
        self._commit(state, obs)
        return out, reward, terminated, truncated, info
