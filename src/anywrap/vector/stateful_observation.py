"""Stateful observation vector wrappers: normalize, delay, frame stack, max and
skip, time aware."""

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import checked, final_obs_batch, is_packed, pack_final_obs
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.shell.images import check_frames
from anywrap.wrappers.stateful_observation import (
    DelayShell,
    FrameStackShell,
    MaxAndSkipShell,
    ObservationStatisticsShell,
    TimeAwareShell,
)


class NormalizeObservation(ObservationStatisticsShell, FusedStep, VectorWrapper):
    """:class:`anywrap.NormalizeObservation` for a vector env: one set of statistics, updated
    from the whole batch once per step, in every autoreset mode (in SAME_STEP mode
    ``info["final_obs"]`` is normalised too).

    Args:
        process_group: A ``torch.distributed`` process group to merge the statistics over.
        learn_final_obs: In SAME_STEP mode, learn from ``info["final_obs"]`` too.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.NormalizeObservation(gym.make_vec("Pendulum-v1", 16))
        >>> obs, _ = envs.reset(seed=0)  # the statistics have seen exactly this batch
        >>> np.abs(obs.mean(0)).round(3), obs.std(0).round(3)
        (array([0., 0., 0.], dtype=float32), array([1., 1., 1.], dtype=float32))
    """

    def __init__(
        self,
        env: VectorEnv,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        process_group: Any = None,
        learn_final_obs: bool = False,
        update_running_mean: bool = True,
        stats_gradient: bool = False,
    ) -> None:
        self._setup(
            env,
            epsilon,
            stats_dtype,
            update_running_mean,
            stats_gradient,
            _disable_deepcopy=True,
            process_group=process_group,
            learn_final_obs=learn_final_obs,
        )
        self.learn_final_obs = learn_final_obs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._check_step(obs)
        return self._run(self._transforms[self._update_running_mean], obs, obs, mask), info

    def _after_step(
        self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict
    ) -> Step:
        if self._mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            obs, info = self._with_final_obs(obs, info)
        else:
            self._check_step(obs)
            obs = self._run(self._transforms[self._update_running_mean], obs, obs, None)
        return obs, reward, terminated, truncated, info

    def _part(self, out: Any) -> Part | None:
        if "final_obs" in out[4] or self._saved_kwargs["process_group"] is not None:
            return None
        fn = self._transforms[self._update_running_mean].fn
        return Part(Piece(fn, check=self._check_step), (None,))

    def _with_final_obs(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        if "_final_obs" not in info:
            raise ValueError(
                "anywrap.vector.NormalizeObservation: a SAME_STEP env's info holds 'final_obs' "
                "but not its mask '_final_obs' (which sub-envs ended); got the keys "
                f"{sorted(info)}"
            )
        self._check(obs)
        final, packed = final_obs_batch(info, obs, self.env.single_observation_space, self.num_envs)
        if not packed:
            self._check(final)
        key = ("final", self._update_running_mean)
        mask = self._mask_for(info["_final_obs"], obs)
        obs, final = self._run(self._transforms[key], obs, obs, final, mask)
        return obs, pack_final_obs(info, final, packed)


class DelayObservation(DelayShell, VectorWrapper):
    """:class:`anywrap.DelayObservation` for a vector env (Gymnasium has none), in every
    autoreset mode (in SAME_STEP mode ``info["final_obs"]`` is delayed too).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DelayObservation(gym.make_vec("CartPole-v1", 2), delay=1)
        >>> float(abs(envs.reset(seed=0)[0]).sum())
        0.0
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        return self._run(
            self._transforms["reset"], obs, checked(self._check, obs), *self._zero.get(obs), mask
        ), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        if not self.delay:
            return obs, reward, terminated, truncated, info
        zero = self._zero.get(obs)
        if self._mode is not AutoresetMode.SAME_STEP:
            out = self._turn_ring("release", obs, *zero, terminated, truncated)
            return out, reward, terminated, truncated, info
        out, final = self._turn_ring("final", obs, *zero, terminated, truncated)
        if "final_obs" in info:  # (the old episode's last is never released: delay > 0)
            info = pack_final_obs(info, final, is_packed(info["final_obs"]))
        return out, reward, terminated, truncated, info


class FrameStackObservation(FrameStackShell, VectorWrapper):
    """:class:`anywrap.FrameStackObservation` for each sub-env of a vector env (Gymnasium has
    none), in every autoreset mode (in SAME_STEP mode ``info["final_obs"]`` becomes the
    stack the episode ended on).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> obs, _ = anywrap.vector.FrameStackObservation(gym.make_vec("CartPole-v1", 2), 4).reset()
        >>> obs.shape, bool((obs[:, 0] == obs[:, 3]).all())
        ((2, 4, 4), True)
    """

    @property
    def bytes_per_env(self) -> float:
        """Bytes of frame storage per sub-env (its ring, and its share of the padding frame)."""
        frames = self._state.frames
        itemsize = np.dtype(self.single_observation_space.dtype).itemsize
        return float(frames.shape[0] * int(np.prod(frames.shape[1:])) * itemsize) / self.num_envs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        check_frames(self, obs, self._shape)
        return self._run(self._transforms["reset"], obs, obs, mask), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        check_frames(self, obs, self._shape)
        term, trunc = self._mask_for(terminated, obs), self._mask_for(truncated, obs)
        final = info.get("final_obs") if self._mode is AutoresetMode.SAME_STEP else None
        if final is None:
            out = self._run(self._transforms["step"], obs, obs, term, trunc)
            return out, reward, terminated, truncated, info
        rows, packed = final_obs_batch(info, obs, self.env.single_observation_space, self.num_envs)
        check_frames(self, rows, self._shape, what="final observations")
        rows = self._mask_for(rows, obs)
        out, stacks = self._run(self._transforms["final"], obs, obs, rows, term, trunc)
        return out, reward, terminated, truncated, pack_final_obs(info, stacks, packed)


class MaxAndSkipObservation(MaxAndSkipShell, VectorWrapper):
    """:class:`anywrap.MaxAndSkipObservation` for a vector env, except that all ``skip`` steps
    always happen: the steps after a sub-env's done belong to its next episode (their reward
    goes to the next call's; in SAME_STEP mode the observation is the new episode's and
    ``info["final_obs"]`` the ended one's). DISABLED envs are refused.

    Example:
        >>> import ale_py, gymnasium as gym, numpy as np, anywrap
        >>> gym.register_envs(ale_py)
        >>> kw = {"num_envs": 2, "vectorization_mode": "sync", "frameskip": 1}
        >>> envs = anywrap.vector.MaxAndSkipObservation(gym.make_vec("ALE/Pong-v5", **kw), skip=4)
        >>> _ = envs.reset(seed=0)
        >>> obs, reward, *_ = envs.step(np.zeros(2, dtype=np.int64))
        >>> obs.shape, reward
        ((2, 210, 160, 3), array([0., 0.]))
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        check_frames(self, obs, self._shape)
        self._run(self._transforms["reset"], obs, mask)
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        same = self._mode is AutoresetMode.SAME_STEP
        rewards, terms, truncs, frames, finals = [], [], [], [], []
        n = self.num_envs
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(actions)
            check_frames(self, obs, self._shape)
            rewards.append(reward)
            terms.append(terminated)
            truncs.append(truncated)
            if i >= self._skip - 2:
                frames.append(obs)
                if same:
                    final = obs
                    if info.get("final_obs") is not None:
                        final, _ = final_obs_batch(info, obs, self.single_observation_space, n)
                    check_frames(self, final, self._shape, what="final observations")
                    finals.append(final)

        def like(x: Any) -> Any:  # the flags and rewards where the state is
            return self._mask_for(x, obs)

        out = self._run(
            self._transforms["step"],
            obs,
            tuple(map(like, rewards)),
            tuple(map(like, terms)),
            tuple(map(like, truncs)),
            (frames[0], frames[1]),
            tuple(map(like, finals)) if same else None,
        )
        if same:
            done = out.terminated | out.truncated
            if not xp.is_host(done):
                info = {**info, "final_obs": out.final_obs, "_final_obs": done}
            elif np.any(done):  # Gymnasium's host layout: entries where an episode ended
                info = pack_final_obs({**info, "_final_obs": done}, out.final_obs, True)
            else:
                info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}
        return out.obs, out.reward, out.terminated, out.truncated, info


class TimeAwareObservation(TimeAwareShell, VectorWrapper):
    """:class:`anywrap.TimeAwareObservation` for a vector env (Gymnasium has none), in every
    autoreset mode; in SAME_STEP mode ``info["final_obs"]`` shows the ended episode's count.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.TimeAwareObservation(gym.make_vec("CartPole-v1", 2), True, True)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[0][:, -1]
        array([0.002, 0.002], dtype=float32)
    """

    @property
    def timesteps(self) -> Any:
        """Each sub-env's step count in its current episode (an array of the env's library)."""
        return self._state.elapsed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        return self._run(self._transforms["reset"], obs, checked(self._check, obs), mask), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        if self._mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            single = self.env.single_observation_space
            final, packed = final_obs_batch(info, obs, single, self.num_envs)
            out, final = self._run(self._transforms["step"], obs, obs, terminated, truncated, final)
            info = pack_final_obs(info, final, packed)
        else:
            out, _ = self._run(self._transforms["step"], obs, obs, terminated, truncated)
        return out, reward, terminated, truncated, info
