"""TimeLimit for a single env."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.time import check_max_episode_steps
from anywrap.transforms import time_limit as T


class TimeLimit(Shell, gym.wrappers.TimeLimit):
    """Truncates an episode at ``max_episode_steps`` steps: :class:`gymnasium.wrappers.TimeLimit`
    (an instance of it), the count on a device env's device.

    Example:
        >>> from gymnasium.envs.classic_control import CartPoleEnv
        >>> import anywrap
        >>> env = anywrap.TimeLimit(CartPoleEnv(), max_episode_steps=2)
        >>> _ = env.reset(seed=0)
        >>> [env.step(0)[3] for _ in range(2)]
        [False, True]
    """

    def __init__(self, env: gym.Env, max_episode_steps: int) -> None:
        """Wrap ``env``; ``max_episode_steps`` > 0 is the step at which episodes truncate."""
        name, _ = self._start(env, max_episode_steps=max_episode_steps)
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        self._wrap(env)
        self._max_episode_steps = max_episode_steps
        self._started = False
        self._state = T.init_clock((), xp=np)
        step = partial(T.time_limit, max_steps=max_episode_steps)
        self._transforms = compiled({"step": step, "reset": with_no_output(T.reset_clock)})

    @property  # type: ignore[override]
    def _elapsed_steps(self) -> int | None:
        """Steps taken in the current episode (``None`` before the first reset); reading
        it copies the count to the host."""
        return int(xp.to_numpy(self._state.elapsed)) if self._started else None

    @_elapsed_steps.setter
    def _elapsed_steps(self, value: int | None) -> None:
        if value is None:
            return  # gymnasium.wrappers.TimeLimit.__init__'s placeholder
        old = self._state.elapsed
        new = xp.namespace(old).asarray(value, dtype=old.dtype, device=xp.device(old))
        self._state = self._state._replace(elapsed=new)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        self._run(self._transforms["reset"], self._state.elapsed)
        self._started = True
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("anywrap.TimeLimit: call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        limited, over = self._run(self._transforms["step"], terminated, terminated, truncated)
        if xp.is_host(truncated):  # Gymnasium's branch, and its Python True
            limited = True if over else truncated
        return obs, reward, terminated, limited, info
