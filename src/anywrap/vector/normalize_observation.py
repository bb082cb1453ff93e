"""Observation wrappers for vector envs: NormalizeObservation, TransformObservation."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import final_obs_batch, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_env_kind,
    check_epsilon,
    check_stats_dtype,
    flag,
    reset_mask_of,
)
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

__all__ = ["NormalizeObservation"]

_NAME = "anywrap.vector.NormalizeObservation"


class NormalizeObservation(Shell, VectorWrapper):
    """Normalises a vector env's observations to zero mean and unit variance, on any library.

    .. math:: \\tilde o_i = (o_i - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}

    One set of statistics is learned from every sub-env's observations (the
    whole batch updates it once per step). Drop-in for
    :class:`gymnasium.wrappers.vector.NormalizeObservation`, and it goes further:

    * Every autoreset mode works. NEXT_STEP (the default) is Gymnasium's
      behaviour. DISABLED, which Gymnasium refuses, is taken too (partial
      resets: ``reset_mask`` below). SAME_STEP, which Gymnasium refuses too,
      returns
      ``info["final_obs"]`` normalised with the same statistics; they learn
      from the returned observations only (as purejaxrl, Brax and Stoix do),
      or, with ``learn_final_obs=True``, from the final observations too, so
      that they see what they would in NEXT_STEP mode.
      ``anywrap.functional.NormalizeObservation`` has the same switch and
      default.
    * ``reset(options={"reset_mask": m})`` works (Gymnasium refuses it): only
      the sub-envs that were reset feed the statistics.
    * Observations of any library stay there, on their device, without a host
      sync; on JAX each step is one compiled call. Dict / Tuple spaces of
      Boxes are normalised leaf by leaf.
    * ``stats_dtype`` asks for wider statistics; the default is Gymnasium's.
    * NaN / inf policy: a sub-env whose observation has a non-finite entry is
      left out of that step's statistics; its output keeps the NaN.
    * ``process_group`` (PyTorch): the statistics are merged across the
      ``torch.distributed`` ranks at every update, so each rank normalises with
      the global statistics.

    Example:
        A bare batch of 16 Pendulums and a normalised one, side by side:

        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> bare = gym.make_vec("Pendulum-v1", num_envs=16, vectorization_mode="sync")
        >>> envs = gym.make_vec("Pendulum-v1", num_envs=16, vectorization_mode="sync")
        >>> envs = anywrap.vector.NormalizeObservation(envs)
        >>> raw, _ = bare.reset(seed=0)
        >>> obs, _ = envs.reset(seed=0)

        Before: the mean and std of the 16 reset observations. After: 0 and 1,
        since the statistics have seen exactly this batch.

        >>> raw.mean(0).round(2), raw.std(0).round(2)
        (array([-0.09,  0.16,  0.16], dtype=float32), array([0.68, 0.71, 0.58], dtype=float32))
        >>> np.abs(obs.mean(0)).round(3), obs.std(0).round(3)
        (array([0., 0., 0.], dtype=float32), array([1., 1., 1.], dtype=float32))

        One step later the statistics are those of both batches, 32 rows:

        >>> actions = np.zeros((16, 1), np.float32)
        >>> seen = np.concatenate([raw, bare.step(actions)[0]])
        >>> _ = envs.step(actions)
        >>> seen.mean(0).round(3), seen.std(0).round(3)
        (array([-0.098,  0.16 ,  0.218], dtype=float32),
         array([0.679, 0.71 , 0.687], dtype=float32))
        >>> envs.obs_rms.mean.round(3), np.sqrt(envs.obs_rms.var).round(3)
        (array([-0.098,  0.16 ,  0.218], dtype=float32),
         array([0.679, 0.71 , 0.687], dtype=float32))
        >>> float(envs.obs_rms.count)  # Gymnasium's count starts at 1e-4
        32.0001

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4 and extending its modes.
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
        """Wrap the vector env ``env``.

        Args:
            env: A vector env with a Box (or Dict / Tuple of Box) single observation space.
            epsilon: Added to the variance under the square root (strictly positive).
            stats_dtype: dtype of the statistics; default as Gymnasium.
            process_group: A ``torch.distributed`` process group to merge statistics over.
            learn_final_obs: SAME_STEP only: learn from ``info["final_obs"]`` too.
            update_running_mean: Whether the statistics learn (also a settable attribute).
            stats_gradient: Whether gradients flow through the statistics update too
                (default: the statistics are a constant of the gradient; see the guide
                "Gradients").
        """
        gym.utils.RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            process_group=process_group,
            learn_final_obs=learn_final_obs,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
        )
        check_env_kind(self, env)
        epsilon = check_epsilon(_NAME, epsilon)
        check_stats_dtype(_NAME, stats_dtype)
        single = env.single_observation_space
        leaf_boxes(_NAME, single)
        VectorWrapper.__init__(self, env)
        self._mode = autoreset_mode(_NAME, env)
        self.single_observation_space = map_space(unbounded_float32, single)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.epsilon = epsilon
        self.stats_dtype = stats_dtype
        self.learn_final_obs = learn_final_obs
        self.update_running_mean = update_running_mean
        self._check = ObservationCheck(_NAME, single, self.num_envs)
        self._state = observation_stats(single, stats_dtype)
        self._boxed = True
        reduce = None
        if process_group is not None:
            from anywrap.distributed import torch_allreduce_sum

            reduce = torch_allreduce_sum(process_group)
        self.stats_gradient = flag(_NAME, "stats_gradient", stats_gradient)
        args: dict[str, Any] = {"epsilon": epsilon, "reduce": reduce}
        args["stats_gradient"] = stats_gradient
        with_final = partial(normalize_observation_with_final, learn_final=learn_final_obs, **args)
        self._transforms = compiled(
            {
                **{u: partial(normalize_observation, update=u, **args) for u in (True, False)},
                **{("final", u): partial(with_final, update=u) for u in (True, False)},
            }
        )

    obs_rms = statistics_property("obs_rms")
    update_running_mean = switch_property()
    _update_running_mean: bool

    def _normalize(self, obs: Any, mask: Any = None) -> Any:
        if getattr(obs, "shape", None) != self._check.shape:
            self._check(obs)
        if mask is not None:
            mask = self._mask_for(mask, obs)
        return self._run(self._transforms[self._update_running_mean], obs, obs, mask)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; a ``reset_mask`` limits the statistics update to the sub-envs reset."""
        mask = reset_mask_of(_NAME, options, self.num_envs)
        obs, info = self.env.reset(seed=seed, options=options)
        return self._normalize(obs, mask), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the sub-envs and return their observations normalised."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        if self._mode is AutoresetMode.SAME_STEP and "final_obs" in info:
            obs, info = self._with_final_obs(obs, info)
        else:  # _normalize, written out: the common step
            if getattr(obs, "shape", None) != self._check.shape:
                self._check(obs)
            obs = self._run(self._transforms[self._update_running_mean], obs, obs, None)
        return obs, reward, terminated, truncated, info

    def _with_final_obs(self, obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """SAME_STEP: normalise the final observations too (and maybe learn from them)."""
        if "_final_obs" not in info:
            raise ValueError(
                f"{_NAME}: a SAME_STEP env's info holds 'final_obs' but not its mask "
                f"'_final_obs' (which sub-envs ended); got the keys {sorted(info)}"
            )
        self._check(obs)
        final, packed = final_obs_batch(info, obs, self.env.single_observation_space, self.num_envs)
        if not packed:
            self._check(final)
        key = ("final", self._update_running_mean)
        mask = self._mask_for(info["_final_obs"], obs)
        obs, final = self._run(self._transforms[key], obs, obs, final, mask)
        return obs, pack_final_obs(info, final, packed)
