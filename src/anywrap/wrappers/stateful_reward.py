"""NormalizeReward for one env, and the state shell the vector one shares."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap import xp
from anywrap.distributed import torch_allreduce_sum
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_epsilon,
    check_gamma,
    check_stats_dtype,
    flag,
    step_values,
)
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.statistics import RunningMeanStd, statistics_property, switch_property
from anywrap.transforms.normalize_reward import init_returns, normalize_reward, reset_returns


class RewardStatisticsShell(Shell):
    """What the single and vector NormalizeReward share."""

    return_rms = statistics_property("return_rms", "rms")
    update_running_mean = switch_property()
    _update_running_mean: bool

    def _setup(self, env: Any, **args: Any) -> None:
        name, batch = self._start(env, **args)
        gamma, epsilon = check_gamma(name, args["gamma"]), check_epsilon(name, args["epsilon"])
        stats_dtype, stats_gradient = args["stats_dtype"], args["stats_gradient"]
        check_stats_dtype(name, stats_dtype)
        self._wrap(env)
        self.gamma, self.epsilon, self.stats_dtype = gamma, epsilon, stats_dtype
        self.update_running_mean = args["update_running_mean"]
        acc = np.dtype(stats_dtype or ("float32" if batch else "float64"))
        state = init_returns(
            batch, xp=np, acc_dtype=acc, stats_dtype=np.dtype(stats_dtype or "float64")
        )
        self._state = state._replace(rms=RunningMeanStd(state.rms))  # type: ignore[arg-type]
        self._boxed = True
        self.stats_gradient = flag(name, "stats_gradient", stats_gradient)
        # A vector env's reset step after a done is left out, or (SAME_STEP) G restarts at 0.
        same = bool(batch) and autoreset_mode(name, env) is AutoresetMode.SAME_STEP
        group = args.get("process_group")
        reduce = None if group is None else torch_allreduce_sum(group)
        kw = dict(gamma=gamma, epsilon=epsilon, reduce=reduce, stats_gradient=stats_gradient)
        kw.update(skip_after_done=bool(batch) and not same, zero_after_done=same)
        steps = {u: partial(normalize_reward, update=u, **kw) for u in (True, False)}
        self._transforms = compiled({**steps, "reset": with_no_output(reset_returns)})


class NormalizeReward(RewardStatisticsShell, gym.Wrapper):
    """Scales rewards by the running standard deviation of the discounted return.

    .. math::

        G \\leftarrow \\gamma G (1 - \\text{terminated}) + r, \\qquad
        \\tilde r = r / \\sqrt{\\operatorname{Var}[G] + \\epsilon}

    :class:`gymnasium.wrappers.NormalizeReward`'s attributes and numbers, quirks included:
    ``G`` is reset by ``terminated`` only (never by ``truncated`` or ``reset()``), and its
    mean is not subtracted. Non-finite rewards are left out of ``G`` and the statistics.

    Args:
        gamma: Discount factor of the return, in [0, 1].
        epsilon: Added to the variance under the square root (strictly positive).
        stats_dtype: dtype of the return and its statistics; default float64, as
            Gymnasium (float32 where the backend has no float64).
        update_running_mean: Whether the statistics learn (also a settable attribute).
        stats_gradient: Whether gradients flow through the statistics update too
            (see the guide "Gradients").

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.NormalizeReward(gym.make("MountainCarContinuous-v0"), gamma=0.99)
        >>> _ = env.reset(seed=0)
        >>> for _ in range(100):  # reward -0.025: G = -2.5 (1 - 0.99**100)
        ...     _, reward, *_ = env.step(np.array([0.5]))
        >>> round(float(env.discounted_reward[0]), 4), round(-2.5 * (1 - 0.99**100), 4)
        (-1.5849, -1.5849)
    """

    def __init__(
        self,
        env: gym.Env,
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        update_running_mean: bool = True,
        stats_gradient: bool = False,
    ) -> None:
        self._setup(
            env,
            gamma=gamma,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
        )

    @property
    def discounted_reward(self) -> Any:
        """The running discounted return ``G`` (Gymnasium keeps it in a 1-element array)."""
        acc = self._state.accumulated
        return xp.namespace(acc).reshape(acc, (1,))

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        value = step_values("anywrap.NormalizeReward", reward, terminated, truncated, None)
        scaled = self._run(
            self._transforms[self._update_running_mean], value, value, terminated, None
        )
        if value is not reward:  # a one-element array: given back in its shape
            scaled = xp.namespace(scaled).reshape(scaled, reward.shape)  # type: ignore[attr-defined]
        return obs, scaled, terminated, truncated, info
