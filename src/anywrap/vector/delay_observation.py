"""DelayObservation for vector envs (Gymnasium has none)."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap.shell.arrays import checked, is_packed, pack_final_obs
from anywrap.wrappers.delay_observation import DelayShell

__all__ = ["DelayObservation"]


class DelayObservation(DelayShell, VectorWrapper):
    """Each sub-env returns its observation of ``delay`` steps ago (the space's zero until
    its episode has one).

    Row by row, what a Gymnasium vector env of sub-envs wrapped in
    :class:`gymnasium.wrappers.DelayObservation` gives, in every autoreset
    mode: an episode's queue starts empty at its reset (a NEXT_STEP reset
    step, a SAME_STEP end, whose ``info["final_obs"]`` is the delayed final
    observation, or ``reset(options={"reset_mask": m})``, after which the
    other sub-envs show their last observation again). The queue is one ring
    of ``delay`` batches on the env's device: nothing is copied.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.DelayObservation(envs, delay=1)
        >>> first, _ = envs.reset(seed=0)
        >>> float(abs(first).sum())
        0.0
        >>> bool((envs.step(envs.action_space.sample())[0] == first).all())
        False

    Change logs:
     * v0.1.0 - Initially added.
    """

    _mode: AutoresetMode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the queues of the sub-envs reset (all, without a ``reset_mask``) empty."""
        obs, info, mask = self._masked_reset(seed, options)
        return self._run(
            self._transforms["reset"], obs, checked(self._check, obs), *self._zero.get(obs), mask
        ), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step; queue the new batch and return the one of ``delay`` steps ago."""
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
