"""DelayObservation for a single env, and the class both shells share."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap.shell.arrays import LibraryConstants, box_check, checked
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode
from anywrap.shell.compiled import compiled
from anywrap.shell.delay_observation import DelayRing, check_delay, host_scalars, zero_observation
from anywrap.transforms.delay_observation import (
    init_delay,
    release,
    release_with_final,
    reset_delay,
)
from anywrap.tree import leaves


class DelayShell(DelayRing, Shell):
    """What the single and vector DelayObservation share: the constructor."""

    def __init__(self, env: Any, delay: int) -> None:
        """Wrap ``env``; ``delay`` >= 0 steps."""
        name, batch = self._start(env, delay=delay)
        single = self._single_space(env)
        delay = check_delay(name, delay)
        zero = zero_observation(name, single)
        self._wrap(env)
        self.delay, self._ranges = delay, {"count": (0, delay + 1)}
        self._check = box_check(name, single, *batch)
        self._zero = LibraryConstants(name, zero)
        self._state = init_delay(zero, delay=delay, batch_shape=batch, xp=np)
        # Gymnasium gives a single env's 0-d leaf (a Discrete's) as a NumPy scalar.
        self._scalars = not batch and any(np.ndim(z) == 0 for z in leaves(zero))
        self._mode = autoreset_mode(name, env) if batch else None
        self._transforms = compiled(
            {
                "release": partial(
                    release, delay=delay, next_step=self._mode is AutoresetMode.NEXT_STEP
                ),
                "final": partial(release_with_final, delay=delay),
                "reset": reset_delay,
            }
        )


class DelayObservation(DelayShell, gym.ObservationWrapper):
    """Returns the observation of ``delay`` steps ago (the space's zero until there is one):
    :class:`gymnasium.wrappers.DelayObservation`, the queue a ring on the env's device.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.DelayObservation(gym.make("CartPole-v1"), delay=2).reset(seed=0)[0]
        array([0., 0., 0., 0.], dtype=float32)
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        zero = self._zero.get(obs)
        return self._released(
            self._run(self._transforms["reset"], obs, checked(self._check, obs), *zero)
        ), info

    def _released(self, out: Any) -> Any:
        return host_scalars(out) if self._scalars else out

    def observation(self, observation: Any) -> Any:
        if not self.delay:
            return checked(self._check, observation)
        zero = self._zero.get(observation)
        return self._released(self._turn_ring("release", checked(self._check, observation), *zero))
