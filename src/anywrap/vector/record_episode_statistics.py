"""RecordEpisodeStatistics for vector envs."""

from typing import Any

import numpy as np
from gymnasium.vector import VectorWrapper

from anywrap import xp
from anywrap.shell.checks import flag, step_values
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.wrappers.common import EpisodeStatisticsShell

_NAME = "anywrap.vector.RecordEpisodeStatistics"


class RecordEpisodeStatistics(EpisodeStatisticsShell, FusedStep, VectorWrapper):
    """:class:`anywrap.RecordEpisodeStatistics` for a vector env: ``info[stats_key]`` holds
    arrays over the sub-envs (zero where not done), ``info["_" + stats_key]`` the done mask.

    Args:
        env: The vector env to wrap.
        buffer_length: How many recent episodes the queues keep.
        stats_key: The info key of the episode statistics.
        flat_info: anywrap's own: the statistics as flat arrays ``info[stats_key + "_r"]``,
            ``"_l"`` and ``"_t"``, with the mask, on every step (zero where no episode
            ended), instead of Gymnasium's nested dict: what TorchRL's ``GymWrapper`` can
            register (see the TorchRL recipe).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.RecordEpisodeStatistics(envs)
        >>> _ = envs.reset(seed=0)
        >>> while "episode" not in (info := envs.step(np.ones(3, dtype=np.int64))[-1]):
        ...     pass
        >>> info["_episode"], info["episode"]["r"]
        (array([ True, False, False]), array([8., 0., 0.]))
    """

    def __init__(
        self,
        env: Any,
        buffer_length: int = 100,
        stats_key: str = "episode",
        *,
        flat_info: bool = False,
    ) -> None:
        flat_info = flag(_NAME, "flat_info", flat_info)
        super().__init__(env, buffer_length, stats_key)
        self._saved_kwargs["flat_info"] = self.flat_info = flat_info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask, self._now())
        return obs, info

    def _after_step(
        self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict
    ) -> Step:
        if not isinstance(info, dict):
            raise TypeError(f"{_NAME}: expected `info` to be a dict, got {type(info)}")
        self._check_step(reward, terminated, truncated)
        # On the host, a step where no episode ends reports nothing (as in
        # Gymnasium) and skips the report's work; device values are never read.
        host = xp.is_host(terminated) and xp.is_host(truncated)
        report = not host or bool(np.count_nonzero(terminated) or np.count_nonzero(truncated))
        report = report or self.flat_info
        if report:
            self._check_info(info)
        out = self._run(
            self._transforms[report], reward, reward, terminated, truncated, now=self._now()
        )
        if out is not None:
            self._write(info, out, host)
        return obs, reward, terminated, truncated, info

    def _part(self, out: Any) -> Part | None:
        info = out[4]
        if not isinstance(info, dict) or any(k in info for k in self._written()):
            return None  # refused on its own, with the error
        fn = self._transforms[True].fn
        piece = Piece(fn, "reward", self._check_step, flags=True, report=True)
        return Part(piece, (self._now(),), self._write, self._written())

    def _check_step(self, reward: Any, terminated: Any, truncated: Any) -> None:
        step_values(_NAME, reward, terminated, truncated, self.num_envs)

    def _written(self) -> tuple[str, ...]:
        key = self._stats_key
        return (*([f"{key}_{k}" for k in "rlt"] if self.flat_info else [key]), f"_{key}")

    def _check_info(self, info: dict[str, Any]) -> None:
        written = list(self._written())
        if any(k in info for k in written):
            raise ValueError(
                f"{_NAME}: expected an info without the keys {written} (this wrapper "
                f"writes them), got one with the keys {sorted(info)}"
            )

    def _write(self, info: dict[str, Any], out: Any, host: bool = False) -> None:
        key = self._stats_key
        stats = {"r": out.returns, "l": out.lengths, "t": out.times}
        if self.flat_info:
            info.update({f"{key}_{k}": v for k, v in stats.items()})
        else:
            info[key] = stats
        # the state keeps `done` as its prev_done: hand out a copy on the host,
        # so that writing into the mask cannot change the wrapper
        info[f"_{key}"] = out.done.copy() if host else out.done

    @property
    def prev_dones(self) -> Any:
        """Which sub-envs ended on the previous step."""
        return self._state.prev_done

    @property
    def episode_start_times(self) -> np.ndarray:
        """``time.perf_counter()`` at the start of each sub-env's episode."""
        return xp.to_numpy(self._state.start_time) + self._t0
