"""DelayObservation for vector envs (Gymnasium has none)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap import xp as axp
from anywrap.shell.arrays import LibraryConstants, ResetsSubEnvs, pack_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode
from anywrap.transforms.delay import (
    advance,
    init_delay,
    release,
    release_inputs,
    release_with_final,
    reset_delay,
)
from anywrap.wrappers.delay import check_delay, zero_observation

__all__ = ["DelayObservation"]


class DelayObservation(ResetsSubEnvs, VectorWrapper, Shell):
    """Each sub-env returns its observation of ``delay`` steps ago (the space's zero until
    its episode has one).

    Gymnasium has no vector ``DelayObservation``; this one gives, row by row,
    what a Gymnasium vector env of sub-envs wrapped in
    :class:`gymnasium.wrappers.DelayObservation` gives, in every autoreset
    mode: an episode's queue starts empty at its reset (a NEXT_STEP reset
    step, a SAME_STEP end, whose ``info["final_obs"]`` is the delayed final
    observation, or ``reset(options={"reset_mask": m})``, after which the
    sub-envs not reset show their last observation again).

    The queue is one ring of ``delay`` batches on the env's device
    (:mod:`anywrap.transforms.delay`): each step stores the env's batch as it
    is and drops the oldest, so nothing is copied, whatever ``delay``.

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

    def __init__(self, env: VectorEnv, delay: int) -> None:
        """Wrap ``env``; ``delay`` >= 0 steps."""
        name = "anywrap.vector.DelayObservation"
        delay = check_delay(name, delay)
        zero = zero_observation(name, env.single_observation_space)
        VectorWrapper.__init__(self, env)
        self._name = name
        self._mode = autoreset_mode(name, env)
        self.delay = delay
        self._zero = LibraryConstants(name, zero=zero)
        self._state = init_delay(zero, delay=delay, batch_shape=(self.num_envs,), xp=np)
        next_step = self._mode is AutoresetMode.NEXT_STEP
        self._release = axp.Compiled(partial(release, delay=delay, next_step=next_step), 0)
        self._with_final = axp.Compiled(partial(release_with_final, delay=delay), 0)
        self._reset = axp.Compiled(reset_delay, 0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the queues of the sub-envs reset (all, without a ``reset_mask``) empty."""
        obs, info, mask = self._reset_env(seed, options)
        state, out = self._reset(self._state_for(obs), obs, self._zero.get(obs)["zero"], mask)
        self._commit(state, obs)
        return out, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step; queue the new batch and return the one of ``delay`` steps ago."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        s = self._state_for(obs)
        if not self.delay:
            self._commit(s, obs)
            return obs, reward, terminated, truncated, info
        zero = self._zero.get(obs)["zero"]
        if self._mode is AutoresetMode.SAME_STEP:
            counts, out, final = self._with_final(*release_inputs(s), zero, terminated, truncated)
            if "final_obs" in info:  # (the old episode's last is never released: delay > 0)
                final_in = info["final_obs"]
                packed = isinstance(final_in, np.ndarray) and final_in.dtype == object
                info = pack_final_obs(info, final, packed)
        else:
            counts, out = self._release(*release_inputs(s), zero, terminated, truncated)
        # The ring turns outside the compiled call, so that nothing is copied.
        self._commit(advance(s, counts, obs, out), obs)
        return out, reward, terminated, truncated, info
