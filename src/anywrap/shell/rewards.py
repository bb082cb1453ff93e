"""What the single and vector ``NormalizeReward`` share: the scaling step and
Gymnasium's ``return_rms`` look.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeReward(gym.make("CartPole-v1"))
    >>> float(env.return_rms.var)
    1.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.shell.checks import step_values
from anywrap.shell.stats import HoldsStatistics, RunningMeanSwitch, RunningStats
from anywrap.transforms.returns import normalize_reward_on_host

__all__ = ["ScalesRewards"]

_NP_FLOAT = np.float64
_NP_BOOL = np.bool_


class ScalesRewards(HoldsStatistics, RunningMeanSwitch):
    """Mixin: scale each step's reward with the compiled ``self._step[update]``
    transform (:func:`anywrap.transforms.returns.normalize_reward`)."""

    env: Any
    _step: dict[bool, Any]
    _name: str
    _num_envs: int | None = None
    """``None`` for one env; the batch size of a vector env."""

    @property
    def return_rms(self) -> RunningStats:
        """Running statistics of the discounted return: ``mean``, ``var``, ``count``.
        Assign another wrapper's ``return_rms`` to share it."""
        holder: RunningStats = self._holders(("rms",))
        return holder

    @return_rms.setter
    def return_rms(self, value: Any) -> None:
        self._share("return_rms", value, ("rms",))

    _host_args: dict[str, float] | None = None
    """A single env's ``gamma`` and ``epsilon``, for its steps on host numbers."""

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env and return its reward scaled."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        host = self._host_args
        if (
            host is not None
            and (type(reward) is float or type(reward) is _NP_FLOAT)
            and (type(terminated) is bool or type(terminated) is _NP_BOOL)
            and self._xp is np
        ):  # one env on NumPy: Python numbers, no array to touch
            done = normalize_reward_on_host(
                self._state, reward, terminated, update=self._update_running_mean, **host
            )
            if done is not None:
                self._state = done[0]
                return obs, done[1], terminated, truncated, info
        value = step_values(self._name, reward, terminated, truncated, self._num_envs)
        state = self._state_for(value)
        state, scaled = self._step[self._update_running_mean](
            state, value, terminated, truncated if self._num_envs else None
        )
        self._commit(state, value)
        if value is not reward:  # a one-element array: given back in its shape
            scaled = axp.namespace(scaled).reshape(scaled, reward.shape)
        return obs, scaled, terminated, truncated, info
