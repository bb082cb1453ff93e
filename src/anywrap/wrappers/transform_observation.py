"""TransformObservation for a single env."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, checked_reset

__all__ = ["TransformObservation"]


class TransformObservation(gym.wrappers.TransformObservation):
    """Applies ``func`` to every observation; any array library passes through untouched.

    Identical to :class:`gymnasium.wrappers.TransformObservation` (same
    arguments): anywrap adds nothing but the promise that no array is converted
    on the way. Give ``observation_space`` when ``func`` changes the bounds.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> raw, _ = gym.make("CartPole-v1").reset(seed=0)
        >>> env = anywrap.TransformObservation(gym.make("CartPole-v1"), lambda o: o * 2, None)
        >>> obs, _ = env.reset(seed=0)
        >>> raw.round(4), obs.round(4)
        (array([ 0.0137, -0.023 , -0.0459, -0.0483], dtype=float32),
         array([ 0.0274, -0.046 , -0.0918, -0.0967], dtype=float32))
    """

    def __init__(
        self,
        env: gym.Env,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None,
    ) -> None:
        """Wrap ``env`` so that observations pass through ``func``."""
        callable_argument("anywrap.TransformObservation", "func", func)
        super().__init__(env, func, observation_space)

    reset = checked_reset(gym.wrappers.TransformObservation.reset)
