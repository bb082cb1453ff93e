"""Base classes of the stateless wrappers (observation, action and reward maps): a step is
the env's step plus one compiled ``fn(x, *constants)``, set by ``_set_map(owner, fn, check,
*constants)`` (``check``: ``None``, or refuses data that does not fit).

Example:
    >>> import anywrap
    >>> env = anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2))
    >>> isinstance(env, ObservationMap), env.reset(seed=0)[0].shape
    (True, (2, 2))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorActionWrapper, VectorRewardWrapper, VectorWrapper

from anywrap import xp
from anywrap.shell.actions import ActionBounds
from anywrap.shell.arrays import LibraryConstants, is_packed, map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.fusion import FusedStep, Part, Piece, Step


class _Map(Shell):
    """A map's compiled function, its check and its (NumPy) constants."""

    _state: Any = ()
    _check: Callable[[Any], Any] | None = None
    _map: xp.Compiled
    _consts: LibraryConstants

    def _set_map(
        self, owner: str, fn: Callable[..., Any], check: Callable[[Any], Any] | None, *consts: Any
    ) -> None:
        self._map, self._check = xp.Compiled(fn), check
        self._consts = LibraryConstants(owner, *consts)

    def _mapped(self, x: Any) -> Any:
        """``x`` checked, then mapped."""
        if self._check is not None:
            self._check(x)
        return self._map(x, *self._consts.get(x))


class ObservationMap(_Map, gym.ObservationWrapper):
    """A map of one env's observations (Gymnasium's ``reset`` and ``step``)."""

    def observation(self, observation: Any) -> Any:
        """The observation mapped."""
        return self._mapped(observation)


class ActionMap(_Map, gym.ActionWrapper):
    """A map of one env's actions, each checked first by ``self._bounds`` (an ActionBounds)."""

    _bounds: ActionBounds

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset, and learn the env's array library and device from the observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._bounds.observe(obs)
        return obs, info

    def action(self, action: Any) -> Any:
        """The action checked, then mapped."""
        action = self._bounds.check(action)
        return self._map(action, *self._consts.get(action))


class RewardMap(_Map, gym.RewardWrapper):
    """A map of one env's rewards."""

    def reward(self, reward: Any) -> Any:
        """The reward mapped."""
        return self._mapped(reward)


class VectorObservationMap(_Map, FusedStep, VectorWrapper):
    """A map of a vector env's observations, ``info["final_obs"]`` included (the entries of
    Gymnasium's object array of final observations as batches of one)."""

    _check_entry: Callable[[Any], Any] | None = None  # checks each entry of that object array
    _both: Callable[..., Any]

    def _set_map(self, owner: str, fn: Callable[..., Any], *args: Any) -> None:
        super()._set_map(owner, fn, *args)
        self._both = xp.Compiled(_Both(fn))

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset and map the observations."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observations(obs), info

    def _after_step(self, out: Step) -> Step:
        obs, reward, terminated, truncated, info = out
        if "final_obs" not in info:
            return self.observations(obs), reward, terminated, truncated, info
        final = info["final_obs"]
        if is_packed(final):
            if self._check_entry is not None:
                for f in final:
                    if f is not None:
                        self._check_entry(f)
            obs = self.observations(obs)
            info = map_final_obs(info, lambda f: self._map(f, *self._consts.get(f)))
            return obs, reward, terminated, truncated, info
        if self._check is not None:
            self._check(obs)
            self._check(final)
        obs, final = self._both(obs, final, *self._consts.get(obs))
        return obs, reward, terminated, truncated, {**info, "final_obs": final}

    def observations(self, observations: Any) -> Any:
        """The batch mapped."""
        return self._mapped(observations)

    def _part(self, out: Any) -> Part | None:
        own = type(self).observations is VectorObservationMap.observations
        # A selection (FilterObservation) is not compiled: a trace would sort a dict's keys.
        if "final_obs" in out[4] or not own or not isinstance(self._map, xp.Compiled):
            return None
        piece = Piece(self._map.fn, check=self._check_step, stateful=False)
        return Part(piece, self._consts.get(out[0]))

    def _check_step(self, obs: Any, *flags: Any) -> None:
        if self._check is not None:
            self._check(obs)


class _Both:
    """``fn`` of the observations and of the final observations, in one program."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn, self.__name__ = fn, getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, obs: Any, final: Any, *consts: Any) -> tuple[Any, Any]:
        return self.fn(obs, *consts), self.fn(final, *consts)


class VectorActionMap(_Map, FusedStep, VectorActionWrapper):
    """A map of a vector env's actions (see :class:`ActionMap`)."""

    _bounds: ActionBounds

    reset = ActionMap.reset

    def actions(self, actions: Any) -> Any:
        """The batch of actions checked, then mapped."""
        actions = self._bounds.check(actions)
        return self._map(actions, *self._consts.get(actions))

    def _before_step(self, actions: Any) -> Any:
        return self.actions(actions)

    def _part(self, out: Any) -> bool:
        return True


class VectorRewardMap(_Map, FusedStep, VectorRewardWrapper):
    """A map of a vector env's rewards."""

    def rewards(self, rewards: Any) -> Any:
        """The rewards mapped."""
        return self._mapped(rewards)

    def _after_step(self, out: Step) -> Step:
        obs, reward, terminated, truncated, info = out
        return obs, self.rewards(reward), terminated, truncated, info

    def _part(self, out: Any) -> Part | None:
        if type(self).rewards is not VectorRewardMap.rewards:
            return None
        piece = Piece(self._map.fn, "reward", self._check, stateful=False)
        return Part(piece, self._consts.get(out[1]))
