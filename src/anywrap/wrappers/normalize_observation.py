"""NormalizeObservation for a single env, and the class both shells share."""

from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.distributed import torch_allreduce_sum
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_epsilon, check_stats_dtype, flag
from anywrap.shell.compiled import compiled
from anywrap.shell.spaces import (
    ObservationCheck,
    leaf_boxes,
    map_space,
    observation_stats,
    unbounded_float32,
)
from anywrap.shell.statistics import statistics_property, switch_property
from anywrap.transforms.normalize_observation import (
    normalize_observation,
    normalize_observation_with_final,
)


class ObservationStatisticsShell(Shell):
    """What the single and vector NormalizeObservation share."""

    obs_rms = statistics_property("obs_rms")
    update_running_mean = switch_property()
    _update_running_mean: bool

    def _setup(
        self,
        env: Any,
        epsilon: Any,
        stats_dtype: Any,
        update_running_mean: Any,
        stats_gradient: Any,
        **vector_args: Any,
    ) -> None:
        """Record and check the arguments, wrap ``env``, build the state and transforms."""
        name, batch = self._start(
            env,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
            **vector_args,
        )
        single = self._single_space(env)
        epsilon = check_epsilon(name, epsilon)
        check_stats_dtype(name, stats_dtype)
        leaf_boxes(name, single)
        self._wrap(env, map_space(unbounded_float32, single))
        self.epsilon, self.stats_dtype = epsilon, stats_dtype
        self.update_running_mean = update_running_mean
        self._check = ObservationCheck(name, single, *batch)
        self._state = observation_stats(single, stats_dtype)
        self._boxed = True
        self.stats_gradient = flag(name, "stats_gradient", stats_gradient)
        self._mode = autoreset_mode(name, env) if batch else None
        group = vector_args.get("process_group")
        reduce = None if group is None else torch_allreduce_sum(group)
        args = {"epsilon": epsilon, "reduce": reduce, "stats_gradient": stats_gradient}
        step = partial(normalize_observation, batched=bool(batch), **args)
        learn_final = bool(vector_args.get("learn_final_obs"))
        final = partial(normalize_observation_with_final, learn_final=learn_final, **args)
        self._transforms = compiled(
            {
                **{u: partial(step, update=u) for u in (True, False)},
                **{("final", u): partial(final, update=u) for u in (True, False)},
            }
        )

    def _check_step(self, obs: Any, *flags: Any) -> None:
        if getattr(obs, "shape", None) != self._check.shape:
            self._check(obs)


class NormalizeObservation(ObservationStatisticsShell, gym.ObservationWrapper):
    """Normalises observations to zero mean and unit variance, on any array library.

    .. math:: \\tilde o = (o - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}

    with :math:`\\mu, \\sigma^2` the running mean and variance of every observation so far,
    the current one included: :class:`gymnasium.wrappers.NormalizeObservation`'s space,
    attributes and numbers. Dict and Tuple spaces of Boxes are normalised leaf by leaf; an
    observation with a non-finite entry is left out of the statistics.

    Args:
        env: The env to wrap; its observation space is a Box, or a Dict / Tuple of Boxes.
        epsilon: Added to the variance under the square root (strictly positive).
        stats_dtype: dtype of the statistics; default Gymnasium's (float32 for float32
            observations, else float64).
        update_running_mean: Whether the statistics learn (also a settable attribute).
        stats_gradient: Whether gradients flow through the statistics update too
            (see the guide "Gradients").

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
        >>> obs, _ = env.reset(seed=0)
        >>> for t in range(200):
        ...     obs, *_ = env.step(np.array([2 * np.sin(t / 10)], np.float32))
        >>> float(env.obs_rms.count), obs.round(4)
        (201.0001, array([-1.4907,  0.0871, -1.4553], dtype=float32))
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
        self._setup(env, epsilon, stats_dtype, update_running_mean, stats_gradient)

    def observation(self, observation: Any) -> Any:
        self._check_step(observation)
        return self._run(self._transforms[self._update_running_mean], observation, observation)
