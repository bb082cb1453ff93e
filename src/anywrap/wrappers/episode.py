"""RecordEpisodeStatistics for a single env."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.checks import step_values
from anywrap.shell.episodes import EpisodeRecords
from anywrap.shell.specs import RecordsArguments
from anywrap.transforms.episodes import (
    Episodes,
    HostRun,
    init_episodes,
    reset_episodes,
    step_episodes,
)
from anywrap.xp import to_numpy

__all__ = ["RecordEpisodeStatistics"]

_NAME = "anywrap.RecordEpisodeStatistics"
_HOST_NUMBERS = frozenset((float, int, np.float64, np.float32))
_NP_BOOL = np.bool_


class RecordEpisodeStatistics(EpisodeRecords, gym.Wrapper, RecordsArguments):
    """Records each episode's cumulative reward, length and wall time.

    When an episode ends, ``info[stats_key]`` holds ``{"r": return, "l":
    length, "t": seconds}``, and the last ``buffer_length`` episodes are kept
    in ``return_queue``, ``length_queue`` and ``time_queue``. Drop-in for
    :class:`gymnasium.wrappers.RecordEpisodeStatistics` (same arguments,
    attributes and info keys).

    For an env whose ``terminated`` / ``truncated`` are device arrays (JAX,
    torch), reading them would force a host sync, so ``info[stats_key]`` is
    added on every step together with the mask ``info["_" + stats_key]``;
    its values are zero where the mask is False.

    Example:
        Always pushing the cart right, the pole falls after 8 steps; CartPole
        pays 1 per step, so the episode's return is 8 too.

        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.RecordEpisodeStatistics(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> total, done = 0.0, False
        >>> while not done:
        ...     _, reward, term, trunc, info = env.step(1)
        ...     total, done = total + reward, term or trunc
        >>> float(info["episode"]["r"]), int(info["episode"]["l"]), total
        (8.0, 8, 8.0)
        >>> sorted(info["episode"]), list(env.return_queue), list(env.length_queue)
        (['l', 'r', 't'], [8.0], [8])

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, buffer_length: int = 100, stats_key: str = "episode") -> None:
        """Wrap ``env``.

        Args:
            env: The env to wrap.
            buffer_length: How many recent episodes the queues keep.
            stats_key: The info key of the episode statistics.
        """
        gym.Wrapper.__init__(self, env)
        self._stats_key = stats_key
        self.buffer_length = buffer_length
        self._t0 = time.perf_counter()
        self._state = init_episodes((), xp=np, buffer_length=buffer_length)
        self._run_bound = 2 * buffer_length + 64
        self._step = {
            # A single env never autoresets: an episode restarts at reset() or,
            # failing that, right after it ends (SAME_STEP bookkeeping is the cheapest).
            r: axp.Compiled(partial(step_episodes, report=r, same_step=True), 1)
            for r in (True, False)
        }
        self._reset = axp.Compiled(reset_episodes, 0)

    _run: HostRun | None = None
    """The episode as Python numbers while the env steps on the host (see _state)."""
    _arrays: Episodes

    @property
    def _state(self) -> Episodes:
        """The transform's state; a host run is written into it first."""
        if self._run is not None:
            self._arrays = self._run.caught_up(self._arrays)
        return self._arrays

    @_state.setter
    def _state(self, state: Episodes) -> None:
        self._arrays, self._run = state, None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and start a new episode."""
        obs, info = self.env.reset(seed=seed, options=options)
        if self._run is not None:
            self._run.restart(self._now())
        else:
            self._state = self._reset(self._state, None, self._now())
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env; report the episode's statistics when it ends."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if type(info) is not dict and not isinstance(info, dict):
            raise TypeError(f"{_NAME}: expected `info` to be a dict, got {type(info)}")
        if (
            type(reward) in _HOST_NUMBERS
            and (type(terminated) is bool or type(terminated) is _NP_BOOL)
            and (type(truncated) is bool or type(truncated) is _NP_BOOL)
            and self._xp is np
        ):  # the common NumPy case: Python numbers, no array to touch
            done = terminated or truncated
            if done and self._stats_key in info:
                raise self._key_taken(info)
            run = self._run
            if run is None:
                run = self._run = HostRun(self._arrays)
            ended = run.step(reward, done, time.perf_counter() - self._t0 if done else 0.0)
            if ended is not None:
                r, length, t = ended
                info[self._stats_key] = {"r": r, "l": length, "t": t}
                if len(run.ended) > self._run_bound:  # the list stays short
                    self._arrays = run.caught_up(self._arrays)
            return obs, reward, terminated, truncated, info
        value = step_values(_NAME, reward, terminated, truncated, None)
        host = axp.is_host(terminated) and axp.is_host(truncated)
        done = bool(terminated or truncated) if host else True
        if done and self._stats_key in info:
            raise self._key_taken(info)
        state = self._state_for(value)
        state, out = self._step[done](
            state, value, terminated, truncated, now=self._now() if done else 0.0
        )
        self._commit(state, value)
        if out is not None:
            if host:
                info[self._stats_key] = {
                    "r": out.returns[()],
                    "l": out.lengths[()],
                    "t": out.times[()],
                }
            else:
                info[self._stats_key] = {"r": out.returns, "l": out.lengths, "t": out.times}
                info["_" + self._stats_key] = out.done
        return obs, reward, terminated, truncated, info

    def _key_taken(self, info: dict[str, Any]) -> ValueError:
        return ValueError(
            f"{_NAME}: expected an info without the key {self._stats_key!r} (this wrapper "
            f"writes it), got one with the keys {sorted(info)}"
        )

    @property
    def episode_start_time(self) -> float:
        """``time.perf_counter()`` at the start of the current episode."""
        return float(to_numpy(self._state.start_time)) + self._t0
