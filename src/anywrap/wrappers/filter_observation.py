"""FilterObservation for a single env, and the constructor both shells use."""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import gymnasium as gym

from anywrap import xp
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.filter_observation import filter_observation


class SpacesOnly(gym.Env):
    """An env that is its spaces only, for building Gymnasium's version of a wrapper."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space | None = None) -> None:
        self.observation_space = observation_space
        self.action_space = action_space if action_space is not None else gym.spaces.Discrete(1)


def gymnasium_spaces(owner: str, build: Callable[[gym.Env], Any], space: gym.Space) -> Any:
    """Gymnasium's wrapper ``build`` over an env of observation space ``space``: its
    argument checks (their errors named ``owner``) and the spaces it makes."""
    try:
        return build(SpacesOnly(space))
    except (TypeError, ValueError) as e:
        raise type(e)(f"{owner}: {e}") from None


def filter_map(owner: str, space: gym.Space, filter_keys: Any) -> tuple[gym.Space, Any, Any]:
    """Gymnasium's filtered space (its argument checks, named ``owner``), the selection of
    ``filter_keys`` and a check that an observation has those entries."""
    build = partial(gym.wrappers.FilterObservation, filter_keys=filter_keys)
    filtered = gymnasium_spaces(owner, build, space).observation_space
    keys = tuple(filter_keys)
    kind = dict if isinstance(keys[0], str) else tuple

    def check(obs: Any) -> None:
        if not isinstance(obs, kind) or not all(
            k in obs if kind is dict else -len(obs) <= k < len(obs) for k in keys
        ):
            got = type(obs).__name__ + (f" of {sorted(obs)}" if isinstance(obs, dict) else "")
            raise ValueError(
                f"{owner}: expected a {kind.__name__} observation with the entries "
                f"{list(keys)}, got {got if isinstance(obs, dict | tuple) else xp.describe(obs)}"
            )

    return filtered, partial(filter_observation, keys=keys), check


class FilterObservation(ObservationMap):
    """Keeps the entries ``filter_keys`` of a Dict (keys) or Tuple (indices) observation:
    :class:`gymnasium.wrappers.FilterObservation`, the arrays kept the env's own.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.TimeAwareObservation(gym.make("CartPole-v1"), flatten=False)
        >>> env = anywrap.FilterObservation(env, filter_keys=["time"])
        >>> env.reset(seed=42)
        ({'time': array([0], dtype=int32)}, {})
    """

    def __init__(self, env: Any, filter_keys: Sequence[str | int]) -> None:
        """Wrap ``env``, whose observation space must be a Dict or a Tuple."""
        name, batch = self._start(env, filter_keys=filter_keys)
        space, fn, check = filter_map(name, self._single_space(env), filter_keys)
        self._wrap(env, space)
        self.filter_keys = filter_keys
        self._set_map(name, fn, check)
        self._map = fn  # a selection: nothing to compile (and jit would sort a dict's keys)
        if batch:
            self._both, self._check_entry = lambda o, f: (fn(o), fn(f)), check
