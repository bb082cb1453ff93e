"""FilterObservation for functional envs: the entries of a Dict or Tuple observation kept."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import gymnasium as gym

from anywrap.shell.checks import wrapper_name
from anywrap.transforms.filter_observation import filter_observation
from anywrap.wrappers.filter_observation import gymnasium_spaces

from .core import FunctionalEnv, ObservationMap

__all__ = ["FilterObservation"]


class FilterObservation(ObservationMap):
    """Keep the entries ``filter_keys`` of a Dict (keys) or Tuple (indices) observation
    (``info["final_obs"]`` too).

    Same arguments, checks and space as :class:`anywrap.FilterObservation`.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.TimeAwareObservation(env, flatten=False, max_timesteps=200)
        >>> env = F.FilterObservation(env, ["time"])
        >>> env.observation_space
        Dict('time': Box(0, 200, (1,), int32))
        >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
        >>> obs["time"].tolist()
        [[0], [0]]
    """

    def __init__(self, env: FunctionalEnv, filter_keys: Sequence[str | int]) -> None:
        super().__init__(env)
        build = partial(gym.wrappers.FilterObservation, filter_keys=filter_keys)
        self._space = gymnasium_spaces(
            wrapper_name(self), build, env.observation_space
        ).observation_space
        self.filter_keys = filter_keys
        self._keys = tuple(filter_keys)

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return filter_observation(obs, self._keys)
