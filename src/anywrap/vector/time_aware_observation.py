"""TimeAwareObservation for vector envs (Gymnasium has none)."""

from typing import Any

from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap.shell.arrays import checked, final_obs_batch, pack_final_obs
from anywrap.wrappers.stateful_observation import TimeAwareShell


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
