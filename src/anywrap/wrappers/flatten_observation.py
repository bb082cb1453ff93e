"""FlattenObservation for a single env, and the constructor both shells use."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.maps import ObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation, flatten_plan


def _flatten_batch(obs: Any, plan: FlatPlan, dtype: str) -> Any:
    return cast(flatten_observation(obs, plan, batch_ndim=1), dtype)


class FlattenObservation(ObservationMap):
    """Flattens every observation into one 1-D array, in the observation's library:
    :class:`gymnasium.wrappers.FlattenObservation` for Box, Discrete, MultiDiscrete,
    MultiBinary and Dict / Tuple spaces of them (Graph, Sequence and Text are refused).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.FlattenObservation(gym.make("Blackjack-v1")).observation_space
        Box(0, 1, (45,), int64)
    """

    def __init__(self, env: Any) -> None:
        name, batch = self._start(env)
        single = self._single_space(env)
        plan = flatten_plan(single, name)
        space = gym.spaces.utils.flatten_space(single)
        self._wrap(env, space)
        fn = partial(flatten_observation, plan=plan)
        if batch:  # Gymnasium's vector wrapper gives the space's dtype
            fn = partial(_flatten_batch, plan=plan, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, None)
        self._explain = ObservationCheck(name, single, *batch)

    def _mapped(self, x: Any) -> Any:
        """``x`` flattened; on failure, an error that says how ``x`` differs from the space."""
        try:
            return self._map(x)
        except (KeyError, IndexError, TypeError):
            self._explain(x)
            raise
