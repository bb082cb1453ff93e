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

from anywrap import xp as axp
from anywrap.shell.checks import step_values
from anywrap.shell.stats import HoldsStatistics, RunningMeanSwitch, RunningStats

__all__ = ["ScalesRewards"]


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

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env and return its reward scaled."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        value = step_values(self._name, reward, terminated, truncated, self._num_envs)
        state = self._state_for(value)
        state, scaled = self._step[self._update_running_mean](
            state, value, terminated, truncated if self._num_envs else None
        )
        self._commit(state, value)
        if value is not reward:  # a one-element array: given back in its shape
            scaled = axp.namespace(scaled).reshape(scaled, reward.shape)
        return obs, scaled, terminated, truncated, info
