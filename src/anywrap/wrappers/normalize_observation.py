"""Observation wrappers for a single env: NormalizeObservation, TransformObservation."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind, check_epsilon, check_stats_dtype, flag
from anywrap.shell.compiled import compiled
from anywrap.shell.spaces import (
    ObservationCheck,
    leaf_boxes,
    map_space,
    observation_stats,
    unbounded_float32,
)
from anywrap.shell.statistics import statistics_property, switch_property
from anywrap.transforms.normalize_observation import normalize_observation

__all__ = ["NormalizeObservation"]

_NAME = "anywrap.NormalizeObservation"


class NormalizeObservation(Shell, gym.ObservationWrapper):
    """Normalises observations to zero mean and unit variance, on any array library.

    .. math:: \\tilde o = (o - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}

    with :math:`\\mu, \\sigma^2` the running mean and population variance of
    every observation seen (including the current one) since construction.
    Drop-in for :class:`gymnasium.wrappers.NormalizeObservation`: same
    arguments, spaces (an unbounded float32 Box), attributes
    (``obs_rms.mean``, ``obs_rms.var``, ``obs_rms.count``) and numbers.

    Differences from Gymnasium, all additive:

    * Observations of any library stay in it, on their device; ``obs_rms``
      holds arrays of the env's library. On JAX the update is one compiled call.
    * Dict and Tuple spaces of Boxes are normalised leaf by leaf (``obs_rms`` is
      then a dict / tuple of statistics).
    * ``stats_dtype`` asks for wider statistics (e.g. ``"float64"``): slower on
      GPUs, more exact over very long runs. The default is Gymnasium's: float32
      for float32 observations, float64 for float64 or integer ones.
    * NaN / inf policy: an observation with a non-finite entry is left out of the
      statistics (Gymnasium's would be poisoned for good); it is still
      normalised, so the NaN reaches you and stays visible.
    * ``state_dict()`` / ``load_state_dict()`` checkpoint the statistics.

    Example:
        A bare Pendulum and a normalised one, driven side by side for one
        episode (200 steps):

        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> bare = gym.make("Pendulum-v1")
        >>> env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
        >>> env.observation_space
        Box(-inf, inf, (3,), float32)
        >>> raw, out = [bare.reset(seed=0)[0]], [env.reset(seed=0)[0]]
        >>> for t in range(200):
        ...     action = np.array([2 * np.sin(t / 10)], np.float32)
        ...     raw.append(bare.step(action)[0])
        ...     out.append(env.step(action)[0])
        >>> raw, out = np.array(raw), np.array(out)

        Before: the raw observations' mean and std, which are what the
        wrapper has learned. After: about 0 and 1 (the early steps are
        normalised with the few observations seen by then).

        >>> raw.mean(0).round(2), raw.std(0).round(2)
        (array([ 0.03, -0.02,  0.22], dtype=float32), array([0.69, 0.72, 5.39], dtype=float32))
        >>> env.obs_rms.mean.round(2), np.sqrt(env.obs_rms.var).round(2), float(env.obs_rms.count)
        (array([ 0.03, -0.02,  0.22], dtype=float32),
         array([0.69, 0.72, 5.39], dtype=float32), 201.0001)
        >>> out.mean(0).round(1), out.std(0).round(1)
        (array([-0.1, -0.1, -0.2], dtype=float32), array([1.1, 1.1, 1.2], dtype=float32))

        The last observation, by the formula above:

        >>> out[-1].round(4)
        array([-1.4907,  0.0871, -1.4553], dtype=float32)
        >>> ((raw[-1] - env.obs_rms.mean) / np.sqrt(env.obs_rms.var + 1e-8)).round(4)
        array([-1.4907,  0.0871, -1.4553], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(
        self,
        env: gym.Env,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        update_running_mean: bool = True,
        stats_gradient: bool = False,
    ) -> None:
        """Wrap ``env``.

        Args:
            env: The env to wrap; its observation space is a Box, or a Dict / Tuple of Boxes.
            epsilon: Added to the variance under the square root (strictly positive).
            stats_dtype: dtype of the statistics; default as Gymnasium (see above).
            update_running_mean: Whether the statistics learn (also a settable attribute).
            stats_gradient: Whether gradients flow through the statistics update too
                (default: the statistics are a constant of the gradient; see the guide
                "Gradients").
        """
        gym.utils.RecordConstructorArgs.__init__(
            self,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
        )
        check_env_kind(self, env)
        epsilon = check_epsilon(_NAME, epsilon)
        check_stats_dtype(_NAME, stats_dtype)
        leaf_boxes(_NAME, env.observation_space)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = map_space(unbounded_float32, env.observation_space)
        self.epsilon, self.stats_dtype = epsilon, stats_dtype
        self.update_running_mean = update_running_mean
        self._check = ObservationCheck(_NAME, env.observation_space)
        self._state = observation_stats(env.observation_space, stats_dtype)
        self._boxed = True
        self.stats_gradient = flag(_NAME, "stats_gradient", stats_gradient)
        step = partial(
            normalize_observation, epsilon=epsilon, batched=False, stats_gradient=stats_gradient
        )
        self._transforms = compiled({u: partial(step, update=u) for u in (True, False)})

    obs_rms = statistics_property("obs_rms")
    update_running_mean = switch_property()
    _update_running_mean: bool

    def observation(self, observation: Any) -> Any:
        """Update the statistics with ``observation`` and return it normalised."""
        if getattr(observation, "shape", None) != self._check.shape:
            self._check(observation)
        return self._run(self._transforms[self._update_running_mean], observation, observation)
