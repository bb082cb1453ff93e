"""FlattenObservation for a single env, and the pure function both shells use."""

from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.shell.maps import ObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan


class FlattenObservation(ObservationMap):
    """Flattens every observation into one 1-D array, in the observation's library:
    :class:`gymnasium.wrappers.FlattenObservation` for Box, Discrete, MultiDiscrete,
    MultiBinary and Dict / Tuple spaces of them (Graph, Sequence and Text are refused).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.FlattenObservation(gym.make("Blackjack-v1")).observation_space
        Box(0, 1, (45,), int64)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: gym.Env) -> None:
        name, _ = self._start(env)
        single = env.observation_space
        plan = flatten_plan(single, name)
        self._wrap(env, gym.spaces.utils.flatten_space(single))
        self._set_map(name, partial(flatten_observation, plan=plan), None)
        self._explain = ObservationCheck(name, single)

    def _mapped(self, x: Any) -> Any:
        return flattened_or_explained(self._map, x, self._explain)


def flattened_or_explained(flatten: Any, x: Any, explain: ObservationCheck) -> Any:
    """``flatten(x)``; on failure, an error from ``explain`` that says how ``x`` differs
    from the space."""
    try:
        return flatten(x)
    except (KeyError, IndexError, TypeError):
        explain(x)
        raise
