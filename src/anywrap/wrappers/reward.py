"""Reward wrappers for a single env: NormalizeReward, TransformReward."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.shell.checks import check_epsilon, check_gamma
from anywrap.shell.rewards import ScalesRewards
from anywrap.shell.specs import RecordsArguments
from anywrap.transforms.returns import init_returns, normalize_reward

__all__ = ["NormalizeReward", "TransformReward"]


_NAME = "anywrap.NormalizeReward"


class NormalizeReward(ScalesRewards, gym.Wrapper, RecordsArguments):
    """Scales rewards by the running standard deviation of the discounted return.

    .. math::

        G \\leftarrow \\gamma G (1 - \\text{terminated}) + r, \\qquad
        \\tilde r = r / \\sqrt{\\operatorname{Var}[G] + \\epsilon}

    Drop-in for :class:`gymnasium.wrappers.NormalizeReward`: same arguments,
    attributes (``return_rms``, ``discounted_reward``, ``update_running_mean``)
    and numbers, quirks included:

    * ``G`` is reset by ``terminated`` only: never by ``truncated``, and never
      by ``reset()``. It is Gymnasium's behaviour, kept because it changes
      the numbers.
    * The mean of ``G`` is not subtracted from the reward.

    Additions: any array library in, the same library out, on its device;
    ``stats_dtype`` (default float64, float32 on JAX without x64);
    non-finite rewards are left out of ``G`` and the statistics (and returned
    as they are); ``state_dict()`` / ``load_state_dict()``.

    Example:
        MountainCar pays ``-0.1 * a**2`` per step: -0.025 for ``a = 0.5``. After
        100 such steps ``G = -2.5 (1 - 0.99**100)``, and the last reward comes
        back divided by the std of every ``G`` seen so far.

        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.NormalizeReward(gym.make("MountainCarContinuous-v0"), gamma=0.99)
        >>> _ = env.reset(seed=0)
        >>> for _ in range(100):
        ...     _, reward, *_ = env.step(np.array([0.5]))
        >>> round(float(env.discounted_reward[0]), 4), round(-2.5 * (1 - 0.99**100), 4)
        (-1.5849, -1.5849)
        >>> round(float(np.sqrt(env.return_rms.var)), 4)
        0.4515
        >>> round(float(reward), 4), round(-0.025 / float(np.sqrt(env.return_rms.var + 1e-8)), 4)
        (-0.0554, -0.0554)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(
        self,
        env: gym.Env,
        gamma: float = 0.99,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        update_running_mean: bool = True,
    ) -> None:
        """Wrap ``env``.

        Args:
            env: The env to wrap.
            gamma: Discount factor of the return, in [0, 1].
            epsilon: Added to the variance under the square root (strictly positive).
            stats_dtype: dtype of the return and its statistics; default float64, as
                Gymnasium (float32 where the backend has no float64).
            update_running_mean: Whether the statistics learn (also a settable attribute).
        """
        gamma, epsilon = check_gamma(_NAME, gamma), check_epsilon(_NAME, epsilon)
        gym.Wrapper.__init__(self, env)
        self._name = _NAME
        self.gamma, self.epsilon, self.stats_dtype = gamma, epsilon, stats_dtype
        self.update_running_mean = update_running_mean
        dtype = axp.resolve_dtype(np, self.stats_dtype or "float64", "cpu")
        self._state = init_returns((), xp=np, acc_dtype=dtype, stats_dtype=dtype, device="cpu")
        self._step = {
            u: axp.Compiled(partial(normalize_reward, gamma=gamma, epsilon=epsilon, update=u), 1)
            for u in (True, False)
        }
        self._host_args = {"gamma": gamma, "epsilon": epsilon}

    @property
    def discounted_reward(self) -> Any:
        """The running discounted return ``G`` (Gymnasium keeps it in a 1-element array)."""
        xp = self._xp
        return xp.reshape(self._state.accumulated, (1,))


class TransformReward(gym.wrappers.TransformReward):
    """Applies ``func`` to every reward; any array library passes through untouched.

    Identical to :class:`gymnasium.wrappers.TransformReward` (same arguments).

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> bare = gym.make("CartPole-v1")
        >>> env = anywrap.TransformReward(gym.make("CartPole-v1"), lambda r: 2 * r)
        >>> _, _ = bare.reset(seed=0), env.reset(seed=0)
        >>> bare.step(0)[1], env.step(0)[1]  # CartPole's reward, then the transformed one
        (1.0, 2.0)
    """

    def __init__(self, env: gym.Env, func: Callable[[Any], Any]) -> None:
        """Wrap ``env`` so that rewards pass through ``func``."""
        super().__init__(env, func)
