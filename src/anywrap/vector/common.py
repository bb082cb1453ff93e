"""Gymnasium's common vector wrappers: episode statistics, time limit, info to list, rendering."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import is_packed
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_env_kind,
    checked_reset,
    flag,
    step_info,
    step_values,
    wrapper_name,
)
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.shell.time import AUTORESET, check_max_episode_steps
from anywrap.transforms import time_limit as T
from anywrap.transforms.tile_frames import tile_frames
from anywrap.tree import tree_map
from anywrap.wrappers.common import EpisodeStatisticsShell, HostView, host_copy, state_field

_NAME = "anywrap.vector.RecordEpisodeStatistics"


class RecordEpisodeStatistics(EpisodeStatisticsShell, FusedStep, VectorWrapper):
    """:class:`anywrap.RecordEpisodeStatistics` for a vector env: ``info[stats_key]`` holds
    arrays over the sub-envs (zero where not done), ``info["_" + stats_key]`` the done mask.

    Args:
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

    def _after_step(self, out: Step) -> Step:
        _, reward, terminated, truncated, info = out  # a dict: after_steps checked it
        self._check_step(reward, terminated, truncated)
        # Host flags: no report where no episode ends (Gymnasium's); device flags are never read.
        host = xp.is_host(terminated) and xp.is_host(truncated)
        report = not host or bool(np.count_nonzero(terminated) or np.count_nonzero(truncated))
        report = report or self.flat_info
        if report and any(k in info for k in self._written()):
            raise ValueError(
                f"{_NAME}: expected an info without the keys {list(self._written())} (this "
                f"wrapper writes them), got one with the keys {sorted(info)}"
            )
        stats = self._run(
            self._transforms[report], reward, reward, terminated, truncated, now=self._now()
        )
        if stats is not None:
            self._write(info, stats, host)
        return out

    def _part(self, out: Any) -> Part | None:
        info, written = out[4], self._written()
        if not info.keys().isdisjoint(written):
            return None  # refused on its own, with the error
        fn = self._transforms[True].fn
        piece = Piece(fn, "reward", self._check_step, flags=True, report=True)
        return Part(piece, (self._now(),), self._write, written)

    def _check_step(self, reward: Any, terminated: Any, truncated: Any) -> None:
        step_values(_NAME, reward, terminated, truncated, self.num_envs)

    def _written(self) -> tuple[str, ...]:
        key = self._stats_key
        return (*([f"{key}_{k}" for k in "rlt"] if self.flat_info else [key]), f"_{key}")

    def _write(self, info: dict[str, Any], out: Any, host: bool = False) -> None:
        key = self._stats_key
        stats = {"r": out.returns, "l": out.lengths, "t": out.times}
        if self.flat_info:
            info.update({f"{key}_{k}": v for k, v in stats.items()})
        else:
            info[key] = stats
        # a host copy: the state keeps `done` as prev_done, which the mask must not change
        info[f"_{key}"] = out.done.copy() if host else out.done

    prev_dones = state_field("prev_done", "Which sub-envs ended on the previous step.")

    @property
    def episode_start_times(self) -> np.ndarray:
        """``time.perf_counter()`` at the start of each sub-env's episode."""
        return xp.to_numpy(self._state.start_time) + self._t0


class TimeLimit(Shell, VectorWrapper):
    """:class:`anywrap.TimeLimit` for a vector env (Gymnasium has none), one count per
    sub-env on its device. The env must take ``reset(options={"reset_mask": m})`` (on a
    device, with an empty mask too): it restarts the sub-envs the limit ends.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.TimeLimit(gym.make_vec("Pendulum-v1", 2), max_episode_steps=3)
        >>> _ = envs.reset(seed=0)
        >>> [envs.step(envs.action_space.sample())[3].tolist() for _ in range(4)]
        [[False, False], [False, False], [True, True], [False, False]]
    """

    def __init__(self, env: VectorEnv, max_episode_steps: int) -> None:
        name, batch = self._start(env, max_episode_steps=max_episode_steps)
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        self._wrap(env)
        self.max_episode_steps = self._max_episode_steps = max_episode_steps
        self._mode = autoreset_mode(name, env)
        self._steps = 0  # steps since the last full reset: no count exceeds it
        self._state = T.init_limit(batch, xp=np)
        limit: dict[str, Any] = {"max_steps": max_episode_steps, "autoreset": AUTORESET[self._mode]}
        step, restart = (partial(fn, **limit) for fn in (T.limit_step, T.restart_step))
        reset = with_no_output(T.reset_limit)
        self._transforms = compiled(
            {"step": step, "restart": restart, "same_step": T.restart_same_step, "reset": reset}
        )

    elapsed_steps = state_field("clock.elapsed", "Each sub-env's steps this episode (an array).")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask)
        if mask is None:
            self._steps = 0
        return obs, info

    def _reset_rows(self, mask: Any, obs: Any) -> Any:
        """The masked reset's observations, shaped as the step's ``obs`` (else an error)."""
        fresh, _ = self.env.reset(options={"reset_mask": mask})
        want, got = (tree_map(lambda x: tuple(getattr(x, "shape", ())), o) for o in (obs, fresh))
        if got == want:
            return fresh
        raise ValueError(
            f"{wrapper_name(self)}: expected the masked reset's observations of {want}, got {got}"
        )

    def _may_reset(self, mask: Any) -> bool:
        return bool(np.any(mask)) if xp.is_host(mask) else self._steps >= self._max_episode_steps

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        step_values("anywrap.vector.TimeLimit", reward, terminated, truncated, self.num_envs)
        step_info("anywrap.vector.TimeLimit", info)
        pending = self._state_for(obs).pending
        if self._mode is AutoresetMode.NEXT_STEP and self._may_reset(pending):
            fresh = self._reset_rows(pending, obs)
            obs, reward, terminated, truncated = self._run(
                self._transforms["restart"], obs, fresh, obs, reward, terminated, truncated
            )
        else:
            truncated = self._run(self._transforms["step"], obs, terminated, truncated)
        self._steps += 1
        forced = self._state.pending
        if self._mode is not AutoresetMode.SAME_STEP or not self._may_reset(forced):
            return obs, reward, terminated, truncated, info
        # SAME_STEP: the sub-envs the limit ends restart now, their last obs the final ones
        fresh = self._reset_rows(forced, obs)
        info = dict(info)
        given = info.get("final_obs")
        packed = is_packed(given) or (given is None and xp.is_host(forced))
        batch = obs if packed or given is None else given
        mask = None if packed else info.get("_final_obs")
        new_obs, final, mask = self._run(
            self._transforms["same_step"], obs, fresh, obs, batch, mask
        )
        if packed:  # Gymnasium's host layout: an object array, None where not done
            final = np.full(self.num_envs, None, dtype=object) if given is None else given.copy()
            for i in np.flatnonzero(forced):
                final[i] = tree_map(lambda x, i=i: x[i], obs)
            mask = np.logical_or(info.get("_final_obs", False), forced)
        info["final_obs"], info["_final_obs"] = final, mask
        return new_obs, reward, terminated, truncated, info


class DictInfoToList(Shell, VectorWrapper):
    """:class:`gymnasium.wrappers.vector.DictInfoToList`, the values kept in their library
    and on their device (``value[i]``); the masks are read on the host.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.DictInfoToList(gym.make_vec("CartPole-v1", num_envs=2)).reset(seed=0)[1]
        [{}, {}]
    """

    def __init__(self, env: VectorEnv) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        if not isinstance(env, VectorEnv):  # it reads num_envs alone, at each step
            check_env_kind(self, env)
        VectorWrapper.__init__(self, env)

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, list[dict[str, Any]]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._to_list(info)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, list[dict[str, Any]]]:  # type: ignore[override]
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return obs, reward, terminated, truncated, self._to_list(info)

    def _rows(self, key: str, value: Any) -> list[Any]:
        if isinstance(value, dict):
            return self._to_list(value)
        if type(value) is tuple:  # a Tuple space's batch (a device env's final observations)
            return list(zip(*(self._rows(key, v) for v in value)))
        if getattr(value, "shape", (None,))[:1] != (self.num_envs,):
            raise ValueError(
                f"{wrapper_name(self)}: expected info[{key!r}] to be an array with one row per "
                f"sub-env ({self.num_envs}), got {xp.describe(value)}"
            )
        return [value[i] for i in range(self.num_envs)]

    def _to_list(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(info, dict):
            raise TypeError(f"{wrapper_name(self)}: expected an info dict, got {info!r}")
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, value in info.items():
            if key.startswith("_"):
                continue
            rows = self._rows(key, value)
            mask = info.get(f"_{key}")
            kept = [True] * self.num_envs if mask is None else xp.to_numpy(mask).tolist()
            if len(kept) != self.num_envs:
                raise ValueError(
                    f"{wrapper_name(self)}: expected info['_{key}'] to hold one bool per "
                    f"sub-env ({self.num_envs}), got {xp.describe(mask)}"
                )
            for row, has, one in zip(out, kept, rows):
                if has:
                    row[key] = one
        return out


class _Missing(gym.vector.VectorWrapper):
    """Where Gymnasium has no vector RecordVideo (before 1.3), constructing one says so."""

    def __init__(self, env: Any, *args: Any, **kwargs: Any) -> None:
        raise ImportError(
            "anywrap.vector.RecordVideo: expected Gymnasium with "
            f"gymnasium.wrappers.vector.RecordVideo (1.3 or newer), got Gymnasium {gym.__version__}"
        )


_Base: Any = getattr(gym.wrappers.vector, "RecordVideo", None) or _Missing


class RecordVideo(_Base):  # type: ignore[misc]
    """:class:`gymnasium.wrappers.vector.RecordVideo`, from frames of any library (a sequence
    or one ``(num_envs, H, W, C)`` batch), tiled where they are and copied to the host once.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> issubclass(anywrap.vector.RecordVideo, gym.wrappers.vector.RecordVideo)
        True
    """

    reset = checked_reset(_Base.reset)  # options checked first

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if self.episode_trigger is not None:
            return super().step(actions)
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        self.step_id += 1
        if self.step_trigger and self.step_trigger(self.step_id):
            self.start_recording(f"{self.name_prefix}-step-{self.step_id}")
        if self.recording:
            self._capture_frame()
            if len(self.recorded_frames) > self.video_length:
                self.stop_recording()
        return obs, rewards, terminations, truncations, info

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frames: Any = self.env.render()
        if not hasattr(frames, "shape"):  # Gymnasium's sequence, one frame per sub-env
            if len(frames) != self.num_envs:
                raise ValueError(
                    f"anywrap.vector.RecordVideo: expected {self.num_envs} frames from "
                    f"render(), got {len(frames)}"
                )
            frames = xp.namespace(frames[0]).stack(list(frames))
        if self.record_first_only:
            frames = frames[:1]
        n, h, w, _ = frames.shape
        if self.frame_cols == -1 or self.frame_rows == -1:
            self._get_concat_frame_shape(n, h, w)
        tiled = tile_frames(frames, rows=self.frame_rows, cols=self.frame_cols)
        self.recorded_frames.append(host_copy(tiled))


class HumanRendering(gym.wrappers.vector.HumanRendering):
    """:class:`gymnasium.wrappers.vector.HumanRendering`, taking the frames of any library
    (each shown frame is copied to the host once).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, render_mode="rgb_array")
        >>> anywrap.vector.HumanRendering(envs).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.vector.HumanRendering.reset)

    def _render_frame(self) -> None:
        with HostView(self):
            super()._render_frame()
