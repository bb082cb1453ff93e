"""DelayObservation for vector envs (Gymnasium has none)."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from anywrap.shell.arrays import (
    LibraryConstants,
    box_check,
    checked,
    is_packed,
    pack_final_obs,
)
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, check_env_kind
from anywrap.shell.compiled import compiled
from anywrap.shell.delay_observation import DelayRing, check_delay, zero_observation
from anywrap.transforms.delay_observation import (
    init_delay,
    release,
    release_with_final,
    reset_delay,
)

__all__ = ["DelayObservation"]

_NAME = "anywrap.vector.DelayObservation"


class DelayObservation(DelayRing, Shell, VectorWrapper):
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
    (:mod:`anywrap.transforms.delay_observation`): each step stores the env's
    batch as it is and drops the oldest, so nothing is copied, whatever ``delay``.

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
        gym.utils.RecordConstructorArgs.__init__(self, delay=delay)
        check_env_kind(self, env)
        delay = check_delay(_NAME, delay)
        zero = zero_observation(_NAME, env.single_observation_space)
        VectorWrapper.__init__(self, env)
        self._mode = autoreset_mode(_NAME, env)
        self.delay, self._ranges = delay, {"count": (0, delay + 1)}
        self._check = box_check(_NAME, env.single_observation_space, self.num_envs)
        self._zero = LibraryConstants(_NAME, zero)
        self._state = init_delay(zero, delay=delay, batch_shape=(self.num_envs,), xp=np)
        next_step = self._mode is AutoresetMode.NEXT_STEP
        self._transforms = compiled(
            {
                "release": partial(release, delay=delay, next_step=next_step),
                "final": partial(release_with_final, delay=delay),
                "reset": reset_delay,
            }
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; the queues of the sub-envs reset (all, without a ``reset_mask``) empty."""
        obs, info, mask = self._masked_reset(seed, options)
        return self._run(
            self._transforms["reset"], obs, checked(self._check, obs), *self._zero.get(obs), mask
        ), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step; queue the new batch and return the one of ``delay`` steps ago."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        checked(self._check, obs)
        if not self.delay:
            return obs, reward, terminated, truncated, info
        zero = self._zero.get(obs)
        if self._mode is not AutoresetMode.SAME_STEP:
            out = self._turn_ring("release", obs, *zero, terminated, truncated)
            return out, reward, terminated, truncated, info
        out, final = self._turn_ring("final", obs, *zero, terminated, truncated)
        if "final_obs" in info:  # (the old episode's last is never released: delay > 0)
            info = pack_final_obs(info, final, is_packed(info["final_obs"]))
        return out, reward, terminated, truncated, info
