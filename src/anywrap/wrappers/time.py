"""TimeLimit and TimeAwareObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.base import Shell
from anywrap.shell.time import CountsTime, check_max_episode_steps
from anywrap.transforms.time import (
    TimeFeature,
    init_clock,
    reset_clock,
    time_limit,
)

__all__ = ["TimeAwareObservation", "TimeLimit"]


class TimeLimit(Shell, gym.wrappers.TimeLimit):
    """Truncates an episode once it has taken ``max_episode_steps`` steps.

    Drop-in for :class:`gymnasium.wrappers.TimeLimit` (and an instance of it,
    so that code looking for a time limit in the stack finds this one): same
    argument, errors, ``spec`` (with ``max_episode_steps`` set) and flags.
    ``truncated`` becomes ``True`` on the step where the count reaches the
    limit, as a Python bool for a host env; for a device env (JAX, torch) the
    count lives on the device and ``truncated`` comes back as an array of the
    env's library, without a host sync. ``state_dict()`` saves the count.

    Example:
        >>> import gymnasium as gym
        >>> from gymnasium.envs.classic_control import CartPoleEnv
        >>> import anywrap
        >>> env = anywrap.TimeLimit(CartPoleEnv(), max_episode_steps=2)
        >>> _ = env.reset(seed=0)
        >>> [env.step(0)[3] for _ in range(2)]
        [False, True]

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, max_episode_steps: int) -> None:
        """Wrap ``env``; ``max_episode_steps`` > 0 is the step at which episodes truncate."""
        max_episode_steps = check_max_episode_steps("anywrap.TimeLimit", max_episode_steps)
        gym.Wrapper.__init__(self, env)
        self._max_episode_steps = max_episode_steps
        self._state = init_clock((), xp=np)
        self._started = False
        self._step = axp.Compiled(partial(time_limit, max_steps=max_episode_steps), 0)
        self._reset = axp.Compiled(reset_clock, 0)

    @property  # type: ignore[override]
    def _elapsed_steps(self) -> int | None:
        """Steps taken in the current episode (``None`` before the first reset); reading
        it copies the count to the host."""
        return int(axp.to_numpy(self._state.elapsed)) if self._started else None

    @_elapsed_steps.setter
    def _elapsed_steps(self, value: int | None) -> None:
        if value is None:
            return  # gymnasium.wrappers.TimeLimit.__init__'s placeholder
        xp = self._xp
        self._state = self._state._replace(
            elapsed=xp.asarray(value, dtype=self._state.elapsed.dtype, device=self._device)
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and the step count."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._state = self._reset(self._state)  # the count follows the flags' library
        self._started = True
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env; truncate once the episode reaches the limit."""
        if not self._started:
            raise gym.error.ResetNeeded("anywrap.TimeLimit: call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        host = axp.is_host(terminated) and axp.is_host(truncated)
        if host:
            self._state, over, _ = time_limit(
                self._state, False, False, max_steps=self._max_episode_steps
            )
            return obs, reward, terminated, (True if over else truncated), info
        state, truncated, _ = self._step(self._state_for(terminated), terminated, truncated)
        self._commit(state, terminated)
        return obs, reward, terminated, truncated, info


class TimeAwareObservation(CountsTime, gym.ObservationWrapper, Shell):
    """Adds the episode's step count to every observation, counted on the data's device.

    Drop-in for :class:`gymnasium.wrappers.TimeAwareObservation`: same
    arguments, spaces and values. The time is an ``int32`` count, or with
    ``normalize_time`` the ``float32`` fraction ``t / max_timesteps``; it goes
    under ``dict_time_key`` of a Dict observation, at the end of a Tuple one,
    or next to the observation as ``{"obs": ..., "time": ...}``, and with
    ``flatten`` (the default) everything is flattened into one array.

    Gymnasium's quirk, kept because it changes the values:

    * flattening a float32 observation with the int32 count gives float64
      (NumPy's common dtype of the two), both in the space and the values;
      ``normalize_time=True`` keeps float32. (JAX without x64 gives float32.)

    ``max_timesteps`` comes from the env's spec or a ``TimeLimit`` in the
    stack, as in Gymnasium; anywrap adds the keyword ``max_timesteps`` for
    envs that have neither.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.TimeAwareObservation(gym.make("CartPole-v1"))
        >>> env.observation_space.shape, env.observation_space.dtype
        ((5,), dtype('float64'))
        >>> _ = env.reset(seed=0)
        >>> obs, *_ = env.step(0)
        >>> obs[-1]
        np.float64(1.0)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def _wrap(self, env: gym.Env) -> tuple[gym.Space, int]:
        gym.ObservationWrapper.__init__(self, env)
        return env.observation_space, 0

    def _start(self, space: gym.Space, feature: TimeFeature) -> None:
        self.observation_space = space
        self._start_clock((), feature)

    @property
    def timesteps(self) -> int:
        """Steps taken in the current episode (reading it copies the count to the host)."""
        return int(axp.to_numpy(self._state.elapsed))

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env and add the new count to its observation."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        state = self._state_for(obs)
        state, out, _ = self._step(state, obs, state.prev_done, state.prev_done)
        self._commit(state, obs)
        return out, reward, terminated, truncated, info

    def observation(self, observation: Any) -> Any:
        """Gymnasium's hook: ``observation`` with the current count added (nothing counted)."""
        state = self._state_for(observation)
        keep = axp.namespace(state.prev_done).zeros_like(state.prev_done)
        return self._reset(state, observation, keep)[1]
