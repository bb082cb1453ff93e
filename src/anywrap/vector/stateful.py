"""Stateful vector shells: normalize, delay, frame stack, max and skip, time aware, sticky."""

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import checked, final_obs_batch, is_packed, pack_final_obs
from anywrap.shell.checks import check_value, step_flags, step_info, step_values, wrapper_name
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.shell.images import check_frames
from anywrap.shell.sticky_action import checked_action
from anywrap.wrappers import stateful_action, stateful_observation, stateful_reward
from anywrap.wrappers.common import state_field


class NormalizeObservation(
    stateful_observation.ObservationStatisticsShell, FusedStep, VectorWrapper
):
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
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
            _disable_deepcopy=True,
            process_group=process_group,
            learn_final_obs=learn_final_obs,
        )
        self.learn_final_obs = learn_final_obs

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._check_step(obs)
        return self._run(self._transforms[self._update_running_mean], obs, obs, mask), info

    def _after_step(self, out: Step) -> Step:
        obs, reward, terminated, truncated, info = out
        if self._mode is not AutoresetMode.SAME_STEP or "final_obs" not in info:
            self._check_step(obs)
            obs = self._run(self._transforms[self._update_running_mean], obs, obs, None)
            return obs, reward, terminated, truncated, info
        if "_final_obs" not in info:
            raise ValueError(
                "anywrap.vector.NormalizeObservation: a SAME_STEP env's info holds 'final_obs' "
                "but not its mask '_final_obs' (which sub-envs ended); got the keys "
                f"{sorted(info)}"
            )
        self._check(obs)
        name, single = wrapper_name(self), self.env.single_observation_space
        final, packed = final_obs_batch(name, info, obs, single, self.num_envs)
        if not packed:
            self._check(final)
        check_value(name, "info['_final_obs']", info["_final_obs"], "bool", self.num_envs)
        mask = self._mask_for(info["_final_obs"], obs)
        key = ("final", self._update_running_mean)
        obs, final = self._run(self._transforms[key], obs, obs, final, mask)
        return obs, reward, terminated, truncated, pack_final_obs(info, final, packed)

    def _part(self, out: Any) -> Part | None:
        if "final_obs" in out[4] or self._saved_kwargs["process_group"] is not None:
            return None
        fn = self._transforms[self._update_running_mean].fn
        return Part(Piece(fn, check=self._check_step), (None,))


class DelayObservation(stateful_observation.DelayShell, VectorWrapper):
    """:class:`anywrap.DelayObservation` for a vector env (Gymnasium has none), in every
    autoreset mode (in SAME_STEP mode ``info["final_obs"]`` is delayed too).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DelayObservation(gym.make_vec("CartPole-v1", 2), delay=1)
        >>> float(abs(envs.reset(seed=0)[0]).sum())
        0.0
    """

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        step_flags(wrapper_name(self), terminated, truncated, self.num_envs)
        step_info(wrapper_name(self), info)
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


class FrameStackObservation(stateful_observation.FrameStackShell, VectorWrapper):
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
        itemsize = np.dtype(self.single_observation_space.dtype).itemsize
        return float(int(np.prod(self._state.frames.shape)) * itemsize) / self.num_envs

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        check_frames(self, obs, self._shape, into=self._dtype)
        step_flags(wrapper_name(self), terminated, truncated, self.num_envs)
        step_info(wrapper_name(self), info)
        term, trunc = self._mask_for(terminated, obs), self._mask_for(truncated, obs)
        final = info.get("final_obs") if self._mode is AutoresetMode.SAME_STEP else None
        if final is None:
            out = self._run(self._transforms["step"], obs, obs, term, trunc)
            return out, reward, terminated, truncated, info
        rows, packed = final_obs_batch(
            wrapper_name(self), info, obs, self.env.single_observation_space, self.num_envs
        )
        check_frames(self, rows, self._shape, into=self._dtype, what="final observations")
        rows = self._mask_for(rows, obs)
        out, stacks = self._run(self._transforms["final"], obs, obs, rows, term, trunc)
        return out, reward, terminated, truncated, pack_final_obs(info, stacks, packed)


class MaxAndSkipObservation(stateful_observation.MaxAndSkipShell, VectorWrapper):
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
        steps, frames, finals = [], [], []
        n = self.num_envs
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(actions)
            check_frames(self, obs, self._shape)
            step_values(wrapper_name(self), reward, terminated, truncated, n)
            step_info(wrapper_name(self), info)
            steps.append((reward, terminated, truncated))
            if i >= self._skip - 2:
                frames.append(obs)
                if same:
                    final = obs
                    if info.get("final_obs") is not None:
                        final, _ = final_obs_batch(
                            wrapper_name(self), info, obs, self.single_observation_space, n
                        )
                    check_frames(self, final, self._shape, what="final observations")
                    finals.append(final)
        # the rewards, flags and final observations of the steps, where the state is
        rewards, terms, truncs, ended = (
            tuple(self._mask_for(x, obs) for x in xs) for xs in (*zip(*steps), finals)
        )
        step = self._transforms["step"]
        out = self._run(step, obs, rewards, terms, truncs, tuple(frames), ended if same else None)
        if same:
            done = out.terminated | out.truncated
            if not xp.is_host(done):
                info = {**info, "final_obs": out.final_obs, "_final_obs": done}
            elif np.any(done):  # Gymnasium's host layout: entries where an episode ended
                info = pack_final_obs({**info, "_final_obs": done}, out.final_obs, True)
            else:
                info = {k: v for k, v in info.items() if k not in ("final_obs", "_final_obs")}
        return out.obs, out.reward, out.terminated, out.truncated, info


class TimeAwareObservation(stateful_observation.TimeAwareShell, VectorWrapper):
    """:class:`anywrap.TimeAwareObservation` for a vector env (Gymnasium has none), in every
    autoreset mode; in SAME_STEP mode ``info["final_obs"]`` shows the ended episode's count.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.TimeAwareObservation(gym.make_vec("CartPole-v1", 2), True, True)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[0][:, -1]
        array([0.002, 0.002], dtype=float32)
    """

    timesteps = state_field("elapsed", "Each sub-env's steps this episode (in the env's library).")

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        step_flags(wrapper_name(self), terminated, truncated, self.num_envs)
        step_info(wrapper_name(self), info)
        if self._mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            single = self.env.single_observation_space
            final, packed = final_obs_batch(wrapper_name(self), info, obs, single, self.num_envs)
            if not packed:
                checked(self._check, final)
            out, final = self._run(self._transforms["step"], obs, obs, terminated, truncated, final)
            info = pack_final_obs(info, final, packed)
        else:
            out, _ = self._run(self._transforms["step"], obs, obs, terminated, truncated)
        return out, reward, terminated, truncated, info


class NormalizeReward(stateful_reward.RewardStatisticsShell, FusedStep, VectorWrapper):
    """:class:`anywrap.NormalizeReward` for a vector env: one ``G`` per sub-env, one
    ``Var[G]`` over all, with Gymnasium's quirks: ``G`` resets on ``terminated`` only; in
    NEXT_STEP and DISABLED modes the reset step after a done is left out; in SAME_STEP mode
    ``G`` restarts at zero right after a done; ``G`` is float32 and its statistics float64
    (``stats_dtype`` puts both in one dtype). A ``reset_mask`` zeroes only the masked
    sub-envs' returns (Gymnasium's zeroes them all).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.NormalizeReward(gym.make_vec("MountainCarContinuous-v0", 2))
        >>> _ = envs.reset(seed=0)
        >>> for _ in range(100):  # rewards -0.025 and -0.1: G = r (1 - 0.99**100) / 0.01
        ...     _ = envs.step(np.array([[0.5], [1.0]]))
        >>> envs.accumulated_reward.round(4)
        array([-1.5849, -6.3397], dtype=float32)
    """

    def __init__(
        self,
        env: VectorEnv,
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        process_group: Any = None,
        update_running_mean: bool = True,
        stats_gradient: bool = False,
    ) -> None:
        """The single wrapper's arguments, and ``process_group``, a ``torch.distributed``
        process group to merge the statistics over."""
        self._setup(
            env,
            gamma=gamma,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
            _disable_deepcopy=True,
            process_group=process_group,
        )

    accumulated_reward = state_field("accumulated", "Each sub-env's running return ``G``.")

    def _after_step(self, out: Step) -> Step:
        obs, reward, terminated, truncated, info = out
        self._check_step(reward, terminated, truncated)
        scaled = self._run(
            self._transforms[self._update_running_mean], reward, reward, terminated, truncated
        )
        return obs, scaled, terminated, truncated, info

    def _part(self, out: Any) -> Part | None:
        if self._saved_kwargs["process_group"] is not None:
            return None
        fn = self._transforms[self._update_running_mean].fn
        return Part(Piece(fn, "reward", self._check_step, flags=True))

    def _check_step(self, reward: Any, terminated: Any, truncated: Any) -> None:
        step_values("anywrap.vector.NormalizeReward", reward, terminated, truncated, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask)
        return obs, info


class StickyAction(stateful_action.StickyShell, VectorWrapper):
    """:class:`anywrap.StickyAction` for a vector env (Gymnasium has none): a sub-env forgets
    its last action when its episode restarts; a list of seeds is hashed into one.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.StickyAction(gym.make_vec("CartPole-v1", 4), 0.25)
        >>> _ = envs.reset(seed=0)
        >>> envs.actions(np.ones(4, dtype=np.int64)).shape
        (4,)
    """

    def actions(self, actions: Any) -> Any:
        gen = self._stream.generator(self._state)
        actions = checked_action(
            "anywrap.vector.StickyAction", self.action_space, actions, self._state.machine.last
        )
        return self._run(self._transforms["step"], actions, gen, actions)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        with self._undone_on_failure():  # refused by the env: not the last actions
            obs, reward, terminated, truncated, info = self.env.step(self.actions(actions))
            step_flags("anywrap.vector.StickyAction", terminated, truncated, self.num_envs)
        machine = self._state.machine._replace(prev_terminated=terminated, prev_truncated=truncated)
        self._state = self._state._replace(machine=machine)
        return obs, reward, terminated, truncated, info
