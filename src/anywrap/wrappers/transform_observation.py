"""TransformObservation for a single env."""

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import callable_argument, checked_reset


class TransformObservation(gym.wrappers.TransformObservation):
    """:class:`gymnasium.wrappers.TransformObservation`, with anywrap's checks: ``func`` maps
    every observation, which passes untouched.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.TransformObservation(gym.make("CartPole-v1"), lambda o: o * 0, None)
        >>> env.reset(seed=0)[0]
        array([ 0., -0., -0., -0.], dtype=float32)
    """

    def __init__(
        self, env: gym.Env, func: Callable[[Any], Any], observation_space: gym.Space | None
    ) -> None:
        callable_argument("anywrap.TransformObservation", "func", func)
        super().__init__(env, func, observation_space)

    reset = checked_reset(gym.wrappers.TransformObservation.reset)
