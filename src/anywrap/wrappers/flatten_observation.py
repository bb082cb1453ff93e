"""FlattenObservation for a single env, and what both shells share."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap.shell.checks import wrapper_name
from anywrap.shell.maps import ObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation, flatten_plan
from anywrap.wrappers._shared import batch_shape, single_space, start, wrap

__all__ = ["FlattenObservation"]


def _flatten_batch(obs: Any, plan: FlatPlan, dtype: str) -> Any:
    return cast(flatten_observation(obs, plan, batch_ndim=1), dtype)


def init_flatten_observation(self: Any, env: Any) -> None:
    """Wrap ``env``."""
    name, batch = start(self, env)
    single = single_space(self, env)
    plan = flatten_plan(single, name)
    space = gym.spaces.utils.flatten_space(single)
    wrap(self, env, space)
    fn = partial(flatten_observation, plan=plan)
    if batch:  # Gymnasium's vector wrapper gives the space's dtype
        fn = partial(_flatten_batch, plan=plan, dtype=np.dtype(space.dtype).name)
    self._set_map(name, fn, None)


def mapped_or_explained(self: Any, x: Any) -> Any:
    """``x`` flattened; on failure, an error that says how ``x`` differs from the space."""
    try:
        return self._map(x)
    except (KeyError, IndexError, TypeError):  # say what differs from the space
        batch = batch_shape(self, self.env)
        ObservationCheck(wrapper_name(self), single_space(self, self.env), *batch)(x)
        raise


class FlattenObservation(ObservationMap):
    """Flattens every observation into one 1-D array, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.FlattenObservation` for Box,
    Discrete (one-hot), MultiDiscrete, MultiBinary, and Dict / Tuple spaces of
    them: the space and values are those of ``gymnasium.spaces.utils``'s
    ``flatten_space`` and ``flatten``, dtypes included. Spaces that Gymnasium
    does not flatten to one array (Graph, Sequence, Text) are refused.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.FlattenObservation(gym.make("Blackjack-v1"))
        >>> env.observation_space
        Box(0, 1, (45,), int64)
        >>> obs, _ = env.reset(seed=0)
        >>> obs.shape, int(obs.sum())
        ((45,), 3)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_flatten_observation
    _mapped = mapped_or_explained
