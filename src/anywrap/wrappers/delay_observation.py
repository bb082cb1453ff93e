"""DelayObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.arrays import LibraryConstants, box_check, checked
from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind
from anywrap.shell.compiled import compiled
from anywrap.shell.delay_observation import (
    DelayRing,
    check_delay,
    host_scalars,
    zero_observation,
)
from anywrap.transforms.delay_observation import init_delay, release, reset_delay
from anywrap.tree import leaves

__all__ = ["DelayObservation"]

_NAME = "anywrap.DelayObservation"


class DelayObservation(DelayRing, Shell, gym.ObservationWrapper):
    """Returns the observation of ``delay`` steps ago (the space's zero until there is one).

    Drop-in for :class:`gymnasium.wrappers.DelayObservation`: same argument,
    errors and values; the zero is Gymnasium's (the space's value closest to
    zero). The queue is a ring of the last ``delay`` observations, in the
    env's library and on its device (:mod:`anywrap.transforms.delay_observation`):
    no observation is copied, and ``state_dict()`` saves the ring. Observations
    are kept as arrays: a Python number in an observation (Blackjack's Tuple of
    Discrete) comes back as a NumPy scalar of the same value.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> start, _ = gym.make("CartPole-v1").reset(seed=0)
        >>> env = anywrap.DelayObservation(gym.make("CartPole-v1"), delay=2)
        >>> first, _ = env.reset(seed=0)
        >>> first
        array([0., 0., 0., 0.], dtype=float32)
        >>> _ = env.step(0)
        >>> bool((env.step(0)[0] == start).all())  # the reset observation, two steps late
        True

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: gym.Env, delay: int) -> None:
        """Wrap ``env``; ``delay`` >= 0 steps."""
        gym.utils.RecordConstructorArgs.__init__(self, delay=delay)
        check_env_kind(self, env)
        delay = check_delay(_NAME, delay)
        zero = zero_observation(_NAME, env.observation_space)
        gym.ObservationWrapper.__init__(self, env)
        self.delay, self._ranges = delay, {"count": (0, delay + 1)}
        self._check = box_check(_NAME, env.observation_space)
        self._zero = LibraryConstants(_NAME, zero)
        self._state = init_delay(zero, delay=delay, batch_shape=(), xp=np)
        # Gymnasium gives a 0-d leaf (a Discrete's) as a NumPy scalar.
        self._scalars = any(np.ndim(z) == 0 for z in leaves(zero))
        self._transforms = compiled(
            {"release": partial(release, delay=delay), "reset": reset_delay}
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and empty the queue; the reset observation is queued."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self._released(
            self._run(
                self._transforms["reset"], obs, checked(self._check, obs), *self._zero.get(obs)
            )
        ), info

    def _released(self, out: Any) -> Any:
        return host_scalars(out) if self._scalars else out

    def observation(self, observation: Any) -> Any:
        """Queue ``observation`` and return the one of ``delay`` steps ago."""
        if not self.delay:
            return checked(self._check, observation)
        zero = self._zero.get(observation)
        return self._released(self._turn_ring("release", checked(self._check, observation), *zero))
