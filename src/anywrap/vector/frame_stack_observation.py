"""FrameStackObservation for vector envs."""

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.images import check_frames
from anywrap.wrappers.stateful_observation import FrameStackShell


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
