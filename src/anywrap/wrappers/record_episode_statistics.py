"""RecordEpisodeStatistics for a single env, and the class both shells share."""

import time
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_stats_key, step_values, whole_number
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.episodes import EpisodeClock
from anywrap.transforms.record_episode_statistics import (
    init_episodes,
    reset_episodes,
    step_episodes,
)

_NAME = "anywrap.RecordEpisodeStatistics"


class EpisodeStatisticsShell(EpisodeClock, Shell):
    """What the single and vector RecordEpisodeStatistics share: the constructor and
    the running episode."""

    def __init__(self, env: Any, buffer_length: int = 100, stats_key: str = "episode") -> None:
        name, batch = self._start(env, buffer_length=buffer_length, stats_key=stats_key)
        buffer_length = whole_number(name, "buffer_length", buffer_length, 0)
        stats_key = check_stats_key(name, stats_key)
        self._wrap(env)
        self._stats_key, self.buffer_length = stats_key, buffer_length
        self._t0 = time.perf_counter()
        self._state = init_episodes(batch, xp=np, buffer_length=buffer_length)
        # A single env never autoresets: an episode restarts at reset() or, failing that,
        # right after it ends (SAME_STEP bookkeeping is the cheapest).
        same = not batch or autoreset_mode(name, env) is AutoresetMode.SAME_STEP
        steps = {r: partial(step_episodes, report=r, same_step=same) for r in (True, False)}
        self._transforms = compiled({**steps, "reset": with_no_output(reset_episodes)})

    @property
    def episode_returns(self) -> Any:
        """The running return of the current episode (of each sub-env's, for a vector)."""
        return self._state.returns

    @property
    def episode_lengths(self) -> Any:
        """The running length of the current episode (of each sub-env's, for a vector)."""
        return self._state.lengths


class RecordEpisodeStatistics(EpisodeStatisticsShell, gym.Wrapper):
    """Records each episode's return, length and wall time in ``info[stats_key]``:
    :class:`gymnasium.wrappers.RecordEpisodeStatistics`; with device flags it is added on
    every step, zero where the mask ``info["_" + stats_key]`` is False.

    Args:
        buffer_length: How many recent episodes the queues keep.
        stats_key: The info key of the episode statistics.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RecordEpisodeStatistics(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> while "episode" not in (info := env.step(1)[-1]):  # the pole falls after 8 steps
        ...     pass
        >>> sorted(info["episode"]), list(env.return_queue), list(env.length_queue)
        (['l', 'r', 't'], [8.0], [8])
    """

    @property
    def episode_start_time(self) -> float:
        """``time.perf_counter()`` at the start of the current episode."""
        return float(xp.to_numpy(self._state.start_time)) + self._t0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        self._state = reset_episodes(self._state, None, self._now())
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if not isinstance(info, dict):
            raise TypeError(f"{_NAME}: expected `info` to be a dict, got {type(info)}")
        value = step_values(_NAME, reward, terminated, truncated, None)
        host = xp.is_host(terminated) and xp.is_host(truncated)
        done = bool(terminated or truncated) if host else True  # device flags: every step
        if done and self._stats_key in info:
            raise ValueError(
                f"{_NAME}: expected an info without the key {self._stats_key!r} (this wrapper "
                f"writes it), got one with the keys {sorted(info)}"
            )
        now = self._now() if done else 0.0
        out = self._run(self._transforms[done], value, value, terminated, truncated, now=now)
        if out is not None:
            stats = {"r": out.returns, "l": out.lengths, "t": out.times}
            # Gymnasium's Python numbers on the host; device values with their mask
            info[self._stats_key] = {k: v.item() for k, v in stats.items()} if host else stats
            if not host:
                info["_" + self._stats_key] = out.done
        return obs, reward, terminated, truncated, info
