"""DiscretizeAction and DiscretizeObservation against Gymnasium 1.4's, side by side:
the same spaces and numbers (bin edges hit exactly, values out of bounds, flat and
per-dimension indices), in every library, and errors that name the wrapper."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from catalogue_envs import LibraryEnv
from helpers import make_backend

import anywrap

LIBRARIES = ["numpy", "jax", "torch", "array_api_strict", "tensorflow"]
if not hasattr(gym.wrappers, "DiscretizeAction"):  # Gymnasium before 1.4: no reference
    pytest.skip("Gymnasium's discretisers arrived in 1.4", allow_module_level=True)


class _Spaces(gym.Env):
    def __init__(self, observation_space: gym.Space, action_space: gym.Space) -> None:
        self.observation_space, self.action_space = observation_space, action_space


_BOX = gym.spaces.Box(np.array([-1.2, -0.07, 0.0]), np.array([0.6, 0.07, 3.0]), dtype=np.float32)
_GRID = gym.spaces.Box(-2.0, 2.0, (2, 2), np.float32)


def _host(backend: Any, x: Any) -> np.ndarray:
    return np.asarray(x) if isinstance(x, np.ndarray | np.generic | int) else backend.to_numpy(x)


def _observations(space: gym.spaces.Box, bins: Any) -> list[np.ndarray]:
    """Random values, every bin edge and bound exactly, and values past the bounds."""
    rng = np.random.default_rng(0)
    low, high = np.ravel(space.low), np.ravel(space.high)
    counts = np.broadcast_to(np.asarray(bins), low.shape)
    out = [rng.uniform(low - 0.1, high + 0.1).astype(space.dtype) for _ in range(50)]
    for k in range(int(counts.max()) + 1):
        edge = np.array(
            [np.linspace(lo, hi, b + 1)[min(k, b)] for lo, hi, b in zip(low, high, counts)]
        )
        out.append(edge.astype(space.dtype))
    out += [low.astype(space.dtype), high.astype(space.dtype), (high + 5).astype(space.dtype)]
    return [o.reshape(space.shape) for o in out]


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("multidiscrete", [False, True])
@pytest.mark.parametrize(("space", "bins"), [(_BOX, 4), (_BOX, (3, 1, 5)), (_GRID, 3)])
def test_observations_are_gymnasiums(
    library: str, multidiscrete: bool, space: Any, bins: Any
) -> None:
    backend = make_backend(library)
    env = _Spaces(space, gym.spaces.Discrete(2))
    ours = anywrap.DiscretizeObservation(env, bins, multidiscrete)
    theirs = gym.wrappers.DiscretizeObservation(env, bins, multidiscrete)
    assert ours.observation_space == theirs.observation_space
    for obs in _observations(space, bins):
        got = ours.observation(obs if library == "numpy" else backend.to_backend(obs))
        want = theirs.observation(obs)
        if library == "numpy":
            assert type(got) is type(want)
        else:
            assert isinstance(got, backend.array_type)
        np.testing.assert_array_equal(_host(backend, got), want, err_msg=str(obs))


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("multidiscrete", [False, True])
@pytest.mark.parametrize(("space", "bins"), [(_BOX, 4), (_BOX, (3, 1, 5)), (_GRID, 3)])
def test_actions_are_gymnasiums(library: str, multidiscrete: bool, space: Any, bins: Any) -> None:
    backend = make_backend(library)
    env = _Spaces(gym.spaces.Box(-1, 1, (1,)), space)
    ours = anywrap.DiscretizeAction(env, bins, multidiscrete)
    theirs = gym.wrappers.DiscretizeAction(env, bins, multidiscrete)
    assert ours.action_space == theirs.action_space
    n = theirs.action_space.nvec if multidiscrete else theirs.action_space.n
    names = (
        [np.array(i) for i in np.ndindex(*(np.asarray(n) + 2))]  # one past each end
        if multidiscrete
        else [np.int64(i) for i in range(-2, int(n) + 2)]
    )
    for name in names:
        given = name - 1 if multidiscrete else name
        got = ours.action(given if library == "numpy" else backend.to_backend(np.asarray(given)))
        want = theirs.action(given)
        assert isinstance(got, np.ndarray if library == "numpy" else backend.array_type)
        host = _host(backend, got)
        assert host.dtype == want.dtype and host.shape == want.shape
        np.testing.assert_array_equal(host, want, err_msg=str(given))


@pytest.mark.parametrize("library", ["jax", "torch", "tensorflow"])
def test_a_device_env_runs_on_its_device(library: str) -> None:
    backend = make_backend(library)
    env = anywrap.DiscretizeObservation(
        anywrap.DiscretizeAction(LibraryEnv(gym.make("Pendulum-v1"), library), bins=7), bins=5
    )
    ref = gym.wrappers.DiscretizeObservation(
        gym.wrappers.DiscretizeAction(gym.make("Pendulum-v1"), bins=7), bins=5
    )
    obs, _ = env.reset(seed=0)
    assert int(_host(backend, obs)) == ref.reset(seed=0)[0]
    for action in (0, 6, 3, 2):
        got = env.step(backend.to_backend(np.int64(action)))
        want = ref.step(action)
        assert isinstance(got[0], backend.array_type)
        assert int(_host(backend, got[0])) == want[0]
    env.step(action)  # a host index for a device env: moved to its library


@pytest.mark.parametrize("cls", [anywrap.DiscretizeAction, anywrap.DiscretizeObservation])
def test_errors_name_the_wrapper(cls: type) -> None:
    name = rf"anywrap\.{cls.__name__}"
    action = cls is anywrap.DiscretizeAction

    def env(space: gym.Space) -> gym.Env:
        other = gym.spaces.Discrete(2)
        return _Spaces(other, space) if action else _Spaces(space, other)

    with pytest.raises(TypeError, match=rf"{name}: expected a Box"):
        cls(env(gym.spaces.Discrete(3)), 3)
    with pytest.raises(ValueError, match=rf"{name}: expected a finite"):
        cls(env(gym.spaces.Box(-np.inf, 0, (1,))), 3)
    for bins in ((3, 4), 0, 2.5, (True,)):
        with pytest.raises(ValueError, match=rf"{name}: expected `bins`"):
            cls(env(gym.spaces.Box(0, 1, (1,))), bins)


def test_revert_is_gymnasiums() -> None:
    env = _Spaces(_BOX, _BOX)
    for multidiscrete in (False, True):
        ours_o = anywrap.DiscretizeObservation(env, (3, 2, 4), multidiscrete)
        theirs_o = gym.wrappers.DiscretizeObservation(env, (3, 2, 4), multidiscrete)
        ours_a = anywrap.DiscretizeAction(env, (3, 2, 4), multidiscrete)
        theirs_a = gym.wrappers.DiscretizeAction(env, (3, 2, 4), multidiscrete)
        for obs in _observations(_BOX, (3, 2, 4))[:20]:
            index = theirs_o.observation(obs)
            for a, b in zip(ours_o.revert_observation(index), theirs_o.revert_observation(index)):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(ours_a.revert_action(obs), theirs_a.revert_action(obs))


class _Fixed(gym.Env):
    """Always the observation it was made with."""

    observation_space = gym.spaces.Box(-1, 1, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, obs: Any) -> None:
        self.obs = np.array(obs, np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return self.obs, {}

    def step(self, action: Any) -> Any:
        return self.obs, 0.0, False, False, {}


@pytest.mark.parametrize("obs", [[np.nan, 0.0], [0.0, np.nan], [np.inf, -np.inf]])
@pytest.mark.parametrize("multidiscrete", [False, True])
def test_a_nan_entry_takes_the_last_bin_as_in_gymnasium(obs: Any, multidiscrete: bool) -> None:
    """``np.digitize`` sorts NaN after every edge (it took the first bin before)."""
    want, got = (
        lib.DiscretizeObservation(_Fixed(obs), bins=(4, 3), multidiscrete=multidiscrete).reset()[0]
        for lib in (gym.wrappers, anywrap)
    )
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("multidiscrete", [False, True])
def test_a_float_action_is_refused_as_gymnasiums_is(multidiscrete: bool) -> None:
    """2.5 took bin 2 (a cast), where Gymnasium's raises an IndexError (its MultiDiscrete
    form casts too): a Discrete or MultiDiscrete action is an index, an int."""
    env = gym.make("MountainCarContinuous-v0")
    ours = anywrap.DiscretizeAction(env, 5, multidiscrete=multidiscrete)
    theirs = gym.wrappers.DiscretizeAction(env, 5, multidiscrete=multidiscrete)
    good = np.array([2]) if multidiscrete else 2
    np.testing.assert_array_equal(ours.action(good), theirs.action(good))
    for bad in (2.5, 2.0) if not multidiscrete else (np.array([2.5]), np.array([2.0])):
        if not multidiscrete:
            with pytest.raises(IndexError):
                theirs.action(bad)
        with pytest.raises(TypeError, match=r"anywrap\.DiscretizeAction: expected an action of an"):
            ours.action(bad)
