"""FlattenObservation for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import ObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan

__all__ = ["FlattenObservation"]


class FlattenObservation(ObservationMap):
    """Flattens every observation into one 1-D array, in the observation's library.

    Drop-in for :class:`gymnasium.wrappers.FlattenObservation` for Box,
    Discrete (one-hot), MultiDiscrete (one-hot per component), MultiBinary,
    and Dict / Tuple spaces of them: the space is
    ``gymnasium.spaces.utils.flatten_space``'s and the values those of
    ``gymnasium.spaces.utils.flatten``, dtypes included (a Box leaf takes its
    space's dtype, and joined leaves take NumPy's common dtype). Spaces that
    Gymnasium does not flatten to one array (Graph, Sequence, Text) are
    refused.

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

    def __init__(self, env: gym.Env) -> None:
        """Wrap ``env``."""
        gym.utils.RecordConstructorArgs.__init__(self)
        check_env_kind(self, env)
        plan = flatten_plan(env.observation_space, "anywrap.FlattenObservation")
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = gym.spaces.utils.flatten_space(env.observation_space)
        self._set_map("anywrap.FlattenObservation", partial(flatten_observation, plan=plan), None)

    def observation(self, observation: Any) -> Any:
        """The observation flattened."""
        try:
            return self._map(observation)
        except (KeyError, IndexError, TypeError):  # say what differs from the space
            ObservationCheck("anywrap.FlattenObservation", self.env.observation_space)(observation)
            raise
