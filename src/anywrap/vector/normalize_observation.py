"""NormalizeObservation for vector envs."""

from typing import Any

from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.wrappers.stateful_observation import ObservationStatisticsShell


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
