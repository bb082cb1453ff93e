"""DelayObservation for vector envs (Gymnasium has none)."""

from typing import Any

from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap.shell.arrays import checked, is_packed, pack_final_obs
from anywrap.wrappers.stateful_observation import DelayShell


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
