"""DelayObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.wrappers.utils import create_zero_array

from anywrap import xp as axp
from anywrap.shell.arrays import LibraryConstants
from anywrap.shell.base import Shell
from anywrap.transforms.delay import advance, init_delay, release, release_inputs, reset_delay
from anywrap.tree import tree_map

__all__ = ["DelayObservation", "check_delay", "zero_observation"]


def check_delay(owner: str, delay: Any) -> int:
    """Gymnasium's checks on ``delay``, with the wrapper named."""
    if isinstance(delay, bool) or not np.issubdtype(type(delay), np.integer):
        raise TypeError(f"{owner}: expected `delay` to be an int, got {delay!r}")
    if delay < 0:
        raise ValueError(f"{owner}: expected `delay` >= 0, got {delay}")
    return int(delay)


def zero_observation(owner: str, space: gym.Space) -> Any:
    """The space's observation closest to zero (Gymnasium's ``create_zero_array``), as
    NumPy arrays (a tree for Dict / Tuple spaces)."""
    try:
        zero = create_zero_array(space)
    except Exception as e:
        raise TypeError(f"{owner}: no zero observation for the space {space}: {e}") from e
    return tree_map(lambda z: np.asarray(z), zero)


class DelayObservation(Shell, gym.ObservationWrapper):
    """Returns the observation of ``delay`` steps ago (the space's zero until there is one).

    Drop-in for :class:`gymnasium.wrappers.DelayObservation`: same argument,
    errors and values; the zero is Gymnasium's (the space's value closest to
    zero). The queue is a ring of the last ``delay`` observations, in the
    env's library and on its device (:mod:`anywrap.transforms.delay`): no
    observation is copied, and ``state_dict()`` saves the ring. Observations
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
        owner = "anywrap.DelayObservation"
        delay = check_delay(owner, delay)
        zero = zero_observation(owner, env.observation_space)
        gym.ObservationWrapper.__init__(self, env)
        self.delay = delay
        self._zero = LibraryConstants(owner, zero=zero)
        self._state = init_delay(zero, delay=delay, batch_shape=(), xp=np)
        self._release = axp.Compiled(partial(release, delay=delay), 0)
        self._reset = axp.Compiled(partial(reset_delay, mask=None), 0)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and empty the queue; the reset observation is queued."""
        obs, info = self.env.reset(seed=seed, options=options)
        state, out = self._reset(self._state_for(obs), obs, self._zero.get(obs)["zero"])
        self._commit(state, obs)
        return out, info

    def observation(self, observation: Any) -> Any:
        """Queue ``observation`` and return the one of ``delay`` steps ago."""
        s = self._state_for(observation)
        if not self.delay:
            self._commit(s, observation)
            return observation
        zero = self._zero.get(observation)["zero"]
        counts, out = self._release(*release_inputs(s), zero)
        # The ring turns outside the compiled call, so that nothing is copied.
        self._commit(advance(s, counts, observation, out), observation)
        return out
