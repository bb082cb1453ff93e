"""MaxAndSkipObservation for vector envs."""

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap import xp
from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.images import check_frames
from anywrap.wrappers.stateful_observation import MaxAndSkipShell


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
