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

from anywrap.shell.state import StatefulShell
from anywrap.shell.stats import RunningMeanSwitch, RunningStats

__all__ = ["ScalesRewards"]


class ScalesRewards(StatefulShell, RunningMeanSwitch):
    """Mixin: scale each step's reward with the compiled ``self._step[update]``
    transform (:func:`anywrap.transforms.returns.normalize_reward`)."""

    env: Any
    _step: dict[bool, Any]
    _passes_truncated: bool = False
    """Whether the transform needs ``truncated`` (only to know which envs are done)."""

    @property
    def return_rms(self) -> RunningStats:
        """Running statistics of the discounted return: ``mean``, ``var``, ``count``."""
        return RunningStats(self, ("rms",))

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env and return its reward scaled."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._follow(reward)
        self._state, scaled = self._step[self._update_running_mean](
            self._state, reward, terminated, truncated if self._passes_truncated else None
        )
        return obs, scaled, terminated, truncated, info
