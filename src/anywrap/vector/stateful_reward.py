"""Stateful reward vector wrappers: NormalizeReward."""

from typing import Any

from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap.shell.checks import step_values
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.wrappers.stateful_reward import RewardStatisticsShell


class NormalizeReward(RewardStatisticsShell, FusedStep, VectorWrapper):
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
            gamma,
            epsilon,
            stats_dtype,
            update_running_mean,
            stats_gradient,
            _disable_deepcopy=True,
            process_group=process_group,
        )

    @property
    def accumulated_reward(self) -> Any:
        """The running discounted return ``G`` of each sub-env."""
        return self._state.accumulated

    def _after_step(
        self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict
    ) -> Step:
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
