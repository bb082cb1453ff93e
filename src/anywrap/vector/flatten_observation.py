"""FlattenObservation for vector envs."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv

from anywrap.shell.maps import VectorObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation, flatten_plan
from anywrap.wrappers.flatten_observation import flattened_or_explained


def _flatten_batch(obs: Any, plan: FlatPlan, dtype: str) -> Any:
    return cast(flatten_observation(obs, plan, batch_ndim=1), dtype)


class FlattenObservation(VectorObservationMap):
    """:class:`anywrap.FlattenObservation` for a vector env; the batch takes the flat
    space's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.FlattenObservation(gym.make_vec("Blackjack-v1", 3)).reset()[0].shape
        (3, 45)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv) -> None:
        name, batch = self._start(env)
        single = env.single_observation_space
        plan = flatten_plan(single, name)
        space = gym.spaces.utils.flatten_space(single)
        self._wrap(env, space)
        # Gymnasium's vector wrapper gives the space's dtype
        dtype = np.dtype(space.dtype).name
        self._set_map(name, partial(_flatten_batch, plan=plan, dtype=dtype), None)
        self._explain = ObservationCheck(name, single, *batch)

    def _mapped(self, x: Any) -> Any:
        return flattened_or_explained(self._map, x, self._explain)
