"""DiscretizeAction and DiscretizeObservation for a single env."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.actions import ActionBounds
from anywrap.shell.checks import flag
from anywrap.shell.maps import ActionMap, ObservationMap
from anywrap.transforms.discretize import BinPlan, bin_plan, discretize, undiscretize


def checked_bins(owner: str, space: Any, bins: Any, what: str) -> tuple[BinPlan, np.ndarray]:
    """The plan of ``bins`` over a finite Box ``space``, and the bins per dimension;
    Gymnasium's errors (a Box, finite bounds, one count per dimension), named."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box {what} space, got {space}")
    low, high = np.ravel(space.low), np.ravel(space.high)
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        raise ValueError(
            f"{owner}: expected a finite {what} space to discretize, got low={low}, high={high}"
        )
    counts = list(bins) if isinstance(bins, tuple | list | np.ndarray) else [bins] * low.size
    if len(counts) != low.size or not all(
        isinstance(b, int | np.integer) and not isinstance(b, bool) and b >= 1 for b in counts
    ):
        raise ValueError(
            f"{owner}: expected `bins` to be an int >= 1 or one per dimension of the {what} "
            f"space ({low.size}), got {bins!r}"
        )
    return bin_plan(low, high, counts), np.array(counts)


def discrete_space(bins: np.ndarray, multidiscrete: bool) -> gym.Space:
    return (
        gym.spaces.MultiDiscrete(bins) if multidiscrete else gym.spaces.Discrete(int(np.prod(bins)))
    )


class DiscretizeAction(ActionMap):
    """Uniform bins over a finite Box action space (the env gets the named bin's centre):
    :class:`gymnasium.wrappers.DiscretizeAction`, in the action's library and device.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.DiscretizeAction(gym.make("Pendulum-v1"), bins=5)
        >>> env.action_space, env.action(3)
        (Discrete(5), array([0.8000001], dtype=float32))
    """

    def __init__(self, env: gym.Env, bins: int | tuple[int, ...], multidiscrete: bool = False):
        name, _ = self._start(env, bins=bins, multidiscrete=multidiscrete)
        multidiscrete = flag(name, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(name, env.action_space, bins, "action")
        space: Any = env.action_space
        self._wrap(env, action_space=discrete_space(self.bins, multidiscrete))
        self.low, self.high = np.ravel(space.low), np.ravel(space.high)
        self.n_dims, self.multidiscrete = int(self.low.size), multidiscrete
        self.bin_centers = [0.5 * (g[:-1] + g[1:]) for g in plan.grids]
        # (ActionBounds reads a space's shape alone: a Discrete's () or a MultiDiscrete's (n,).)
        self._bounds = ActionBounds(self, self.action_space)  # type: ignore[arg-type]
        fn = partial(
            undiscretize,
            shape=tuple(space.shape),
            dtype=np.dtype(space.dtype).name,
            multidiscrete=multidiscrete,
        )
        self._set_map(name, fn, None, *plan.action)

    def revert_action(self, action: Any) -> Any:
        """The bin whose centre is nearest ``action`` (a continuous action, read on the
        host): Gymnasium's inverse of :meth:`action`, for tests and analysis."""
        action = np.ravel(xp.to_numpy(action))
        index = [int(np.argmin(np.abs(c - a))) for c, a in zip(self.bin_centers, action)]
        return (
            np.array(index, dtype=int)
            if self.multidiscrete
            else np.ravel_multi_index(index, self.bins)
        )


class DiscretizeObservation(ObservationMap):
    """Each observation of a finite Box space becomes the index of its uniform bin:
    :class:`gymnasium.wrappers.DiscretizeObservation`, in the observation's library and
    device (a NumPy env's flat index is a Python int, as Gymnasium's).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.DiscretizeObservation(gym.make("MountainCar-v0"), bins=10)
        >>> env.observation_space, env.reset(seed=42)[0]
        (Discrete(100), 45)
    """

    def __init__(self, env: gym.Env, bins: int | tuple[int, ...], multidiscrete: bool = False):
        name, _ = self._start(env, bins=bins, multidiscrete=multidiscrete)
        multidiscrete = flag(name, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(name, env.observation_space, bins, "observation")
        space: Any = env.observation_space
        self._wrap(env, discrete_space(self.bins, multidiscrete))
        self.low, self.high = np.ravel(space.low), np.ravel(space.high)
        self.n_dims, self.multidiscrete = int(self.low.size), multidiscrete
        self.bin_edges = [g[1:-1] for g in plan.grids]
        self._grids = plan.grids
        shape = tuple(space.shape)

        def check(obs: Any) -> None:
            if tuple(getattr(obs, "shape", ())) != shape or not hasattr(obs, "dtype"):
                raise ValueError(
                    f"{name}: expected an observation of shape {shape} ({space}), "
                    f"got {xp.describe(obs)}"
                )

        fn = partial(discretize, shape=shape, multidiscrete=multidiscrete)
        self._set_map(name, fn, check, *plan.observation)

    def observation(self, observation: Any) -> Any:
        out = self._mapped(observation)
        return int(out) if not self.multidiscrete and xp.is_host(out) else out

    def revert_observation(self, obs: Any) -> tuple[np.ndarray, np.ndarray]:
        """The edges ``(lows, highs)`` of the bin ``obs`` names (read on the host):
        Gymnasium's inverse of :meth:`observation`, for tests and analysis."""
        obs = xp.to_numpy(obs)
        index = (
            np.asarray(obs, dtype=int)
            if self.multidiscrete
            else np.unravel_index(int(obs), tuple(self.bins))
        )
        dtype = self.env.observation_space.dtype
        lows = np.array([g[i] for g, i in zip(self._grids, index)], dtype=dtype)
        highs = np.array([g[i + 1] for g, i in zip(self._grids, index)], dtype=dtype)
        return lows, highs
