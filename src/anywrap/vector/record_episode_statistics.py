"""RecordEpisodeStatistics for vector envs."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import VectorWrapper

from anywrap import xp
from anywrap.shell.checks import flag, step_values
from anywrap.wrappers.record_episode_statistics import EpisodeStatisticsShell

__all__ = ["RecordEpisodeStatistics"]

_NAME = "anywrap.vector.RecordEpisodeStatistics"


class RecordEpisodeStatistics(EpisodeStatisticsShell, VectorWrapper):
    """Records each sub-env's episode return, length and wall time, on the env's device.

    On a step where some sub-envs end, ``info[stats_key]`` is ``{"r", "l",
    "t"}`` (arrays over sub-envs, zero where not done) and
    ``info["_" + stats_key]`` is the done mask. Drop-in for
    :class:`gymnasium.wrappers.vector.RecordEpisodeStatistics` (arguments,
    attributes, info keys, every autoreset mode).

    On NumPy the keys appear only on steps where an episode ends, as in
    Gymnasium; on device arrays (where checking would sync) on every step.

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
        self,
        env: Any,
        buffer_length: int = 100,
        stats_key: str = "episode",
        *,
        flat_info: bool = False,
    ) -> None:
        """Wrap ``env``.

        Args:
            env: The vector env to wrap.
            buffer_length: How many recent episodes the queues keep.
            stats_key: The info key of the episode statistics.
            flat_info: anywrap's own: write the statistics as flat arrays
                ``info[stats_key + "_r"]``, ``"_l"`` and ``"_t"``, with the mask, on every
                step and every backend (zero where no episode ended), instead of
                Gymnasium's nested dict: what TorchRL's ``GymWrapper`` can register
                (see the TorchRL recipe).
        """
        flat_info = flag(_NAME, "flat_info", flat_info)
        super().__init__(env, buffer_length, stats_key)
        self._saved_kwargs["flat_info"] = self.flat_info = flat_info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; restart the statistics of the sub-envs reset (all, without a mask)."""
        obs, info, mask = self._masked_reset(seed, options)
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
        report = report or self.flat_info
        key = self._stats_key
        written = [f"{key}_{k}" for k in "rlt"] if self.flat_info else [key]
        written.append(f"_{key}")
        if report and any(k in info for k in written):
            raise ValueError(
                f"{_NAME}: expected an info without the keys {written} (this wrapper "
                f"writes them), got one with the keys {sorted(info)}"
            )
        out = self._run(
            self._transforms[report], reward, reward, terminated, truncated, now=self._now()
        )
        if out is not None:
            stats = {"r": out.returns, "l": out.lengths, "t": out.times}
            if self.flat_info:
                info.update({f"{key}_{k}": v for k, v in stats.items()})
            else:
                info[key] = stats
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
