"""RecordEpisodeStatistics for vector envs."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_env_kind,
    check_stats_key,
    reset_mask_of,
    step_values,
    whole_number,
)
from anywrap.shell.compiled import compiled
from anywrap.shell.compiled import with_no_output as _with_no_output
from anywrap.shell.episodes import EpisodeClock
from anywrap.transforms.record_episode_statistics import (
    init_episodes,
    reset_episodes,
    step_episodes,
)

__all__ = ["RecordEpisodeStatistics"]

_NAME = "anywrap.vector.RecordEpisodeStatistics"


class RecordEpisodeStatistics(EpisodeClock, Shell, VectorWrapper):
    """Records each sub-env's episode return, length and wall time, on the env's device.

    On a step where some sub-envs end, ``info[stats_key]`` is ``{"r", "l",
    "t"}`` (arrays over sub-envs, zero where not done) and
    ``info["_" + stats_key]`` is the done mask. Drop-in for
    :class:`gymnasium.wrappers.vector.RecordEpisodeStatistics` (arguments,
    attributes, info keys, every autoreset mode).

    On NumPy the keys appear only on steps where an episode ends, as in
    Gymnasium. On device arrays, checking that would be a host sync, so the
    keys are present on every step; use the mask. ``return_queue`` and friends
    are kept in a device buffer and read on access.

    Example:
        Three CartPoles, always pushed right, fall after 8, 9 and 10 steps;
        each pays 1 per step.

        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.RecordEpisodeStatistics(envs)
        >>> _ = envs.reset(seed=0)
        >>> for t in range(1, 13):
        ...     _, _, _, _, info = envs.step(np.ones(3, dtype=np.int64))
        ...     if "episode" in info:
        ...         print(t, info["_episode"], info["episode"]["r"], info["episode"]["l"])
        8 [ True False False] [8. 0. 0.] [8 0 0]
        9 [False  True False] [0. 9. 0.] [0 9 0]
        10 [False False  True] [ 0.  0. 10.] [ 0  0 10]
        >>> envs.episode_count, list(envs.return_queue), list(envs.length_queue)
        (3, [8.0, 9.0, 10.0], [8, 9, 10])

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(
        self, env: VectorEnv, buffer_length: int = 100, stats_key: str = "episode"
    ) -> None:
        """Wrap the vector env ``env``.

        Args:
            env: The vector env to wrap.
            buffer_length: How many recent episodes the queues keep.
            stats_key: The info key of the episode statistics.
        """
        gym.utils.RecordConstructorArgs.__init__(
            self, buffer_length=buffer_length, stats_key=stats_key
        )
        check_env_kind(self, env)
        buffer_length = whole_number(_NAME, "buffer_length", buffer_length, 0)
        stats_key = check_stats_key(_NAME, stats_key)
        VectorWrapper.__init__(self, env)
        self._mode = autoreset_mode(_NAME, env)
        self._stats_key = stats_key
        self.buffer_length = buffer_length
        self._t0 = time.perf_counter()
        self._state = init_episodes((self.num_envs,), xp=np, buffer_length=buffer_length)
        same = self._mode is AutoresetMode.SAME_STEP
        self._transforms = compiled(
            {
                **{r: partial(step_episodes, same_step=same, report=r) for r in (True, False)},
                "reset": _with_no_output(reset_episodes),
            }
        )

    @property
    def episode_returns(self) -> Any:
        """The running return of each sub-env's current episode."""
        return self._state.returns

    @property
    def episode_lengths(self) -> Any:
        """The running length of each sub-env's current episode."""
        return self._state.lengths

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; restart the statistics of the sub-envs reset (all, without a mask)."""
        mask = reset_mask_of(_NAME, options, self.num_envs)
        obs, info = self.env.reset(seed=seed, options=options)
        if mask is not None:
            mask = self._mask_for(mask, obs)
        self._run(self._transforms["reset"], obs, mask, self._now())
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs; report the statistics of the episodes that end."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        if not isinstance(info, dict):
            raise TypeError(f"{_NAME}: expected `info` to be a dict, got {type(info)}")
        step_values(_NAME, reward, terminated, truncated, self.num_envs)
        # On the host, a step where no episode ends reports nothing (as in
        # Gymnasium) and skips the report's work; device values are never read.
        host = xp.is_host(terminated) and xp.is_host(truncated)
        report = not host or bool(np.count_nonzero(terminated) or np.count_nonzero(truncated))
        key = self._stats_key
        if report and (key in info or f"_{key}" in info):
            raise ValueError(
                f"{_NAME}: expected an info without the keys {key!r} and {'_' + key!r} (this "
                f"wrapper writes them), got one with the keys {sorted(info)}"
            )
        out = self._run(
            self._transforms[report], reward, reward, terminated, truncated, now=self._now()
        )
        if out is not None:
            info[key] = {"r": out.returns, "l": out.lengths, "t": out.times}
            # the state keeps `done` as its prev_done: hand out a copy on the host,
            # so that writing into the mask cannot change the wrapper
            info[f"_{key}"] = out.done.copy() if host else out.done
        return obs, reward, terminated, truncated, info

    @property
    def prev_dones(self) -> Any:
        """Which sub-envs ended on the previous step."""
        return self._state.prev_done

    @property
    def episode_start_times(self) -> np.ndarray:
        """``time.perf_counter()`` at the start of each sub-env's episode."""
        return xp.to_numpy(self._state.start_time) + self._t0
