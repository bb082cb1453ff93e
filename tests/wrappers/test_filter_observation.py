"""FilterObservation, single and vector: Gymnasium's entries, spaces and errors (named),
on Dict and Tuple observations, in every autoreset mode, and the env's own arrays on
every library."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from catalogue_envs import LibraryEnv, LibraryVectorEnv
from helpers import make_backend

import anywrap

LIBRARIES = ["numpy", "jax", "torch", "array_api_strict", "tensorflow"]


def _timed(steps: int = 5) -> gym.Env:
    env = gym.make("Pendulum-v1", max_episode_steps=steps)
    return gym.wrappers.TimeAwareObservation(env, flatten=False)


def _timed_vector(mode: str = "NextStep") -> gym.vector.VectorEnv:
    return gym.make_vec(
        "Pendulum-v1",
        num_envs=3,
        vectorization_mode="sync",
        max_episode_steps=4,
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode(mode)},
        wrappers=[lambda e: gym.wrappers.TimeAwareObservation(e, flatten=False)],
    )


def _same(got: object, want: object, backend: object) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want)
        for k in want:
            _same(got[k], want[k], backend)
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b, backend)
    else:
        host = backend.to_numpy(got) if not isinstance(got, np.ndarray | int) else got
        np.testing.assert_array_equal(np.asarray(host), np.asarray(want))


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("keys", [["time", "obs"], ["time"]])
def test_the_entries_are_gymnasiums_in_every_library(library: str, keys: list[str]) -> None:
    backend = make_backend(library)
    ours = anywrap.FilterObservation(LibraryEnv(_timed(), library), keys)
    theirs = gym.wrappers.FilterObservation(_timed(), keys)
    assert ours.observation_space == theirs.observation_space
    _same(ours.reset(seed=0)[0], theirs.reset(seed=0)[0], backend)
    for _ in range(4):
        action = np.array([0.5], np.float32)
        got, want = ours.step(backend.to_backend(action))[0], theirs.step(action)[0]
        _same(got, want, backend)
        assert all(isinstance(v, backend.array_type) for v in got.values())


def test_tuple_observations_by_index() -> None:
    def env() -> gym.Env:
        return gym.make("Blackjack-v1")

    for keys in ([0, 2], [2], [-1]):
        ours, theirs = (
            anywrap.FilterObservation(env(), keys),
            gym.wrappers.FilterObservation(env(), keys),
        )
        assert ours.observation_space == theirs.observation_space
        assert ours.reset(seed=3)[0] == theirs.reset(seed=3)[0]
        assert ours.step(0)[0] == theirs.step(0)[0]


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_entries_are_gymnasiums(library: str, mode: str) -> None:
    backend = make_backend(library)
    bare = _timed_vector(mode)
    ours = anywrap.vector.FilterObservation(
        bare if library == "numpy" else LibraryVectorEnv(bare, library), ["time"]
    )
    reference = gym.wrappers.vector.FilterObservation(_timed_vector(), ["time"])
    assert ours.single_observation_space == reference.single_observation_space
    assert ours.observation_space == reference.observation_space
    # Gymnasium's vector wrappers refuse SAME_STEP: the reference is the env's own "time".
    theirs = _timed_vector(mode)
    _same(ours.reset(seed=0)[0], {"time": theirs.reset(seed=0)[0]["time"]}, backend)
    finals = 0
    for _ in range(6):
        actions = np.full((3, 1), 0.5, np.float32)
        got = ours.step(actions if library == "numpy" else backend.to_backend(actions))
        want = theirs.step(actions)
        _same(got[0], {"time": want[0]["time"]}, backend)
        if "final_obs" in want[4]:
            finals += 1
            for i, final in enumerate(want[4]["final_obs"]):
                if final is not None:
                    _same(got[4]["final_obs"][i], {"time": final["time"]}, backend)
    assert finals == (1 if mode == "SameStep" else 0)


@pytest.mark.parametrize("vector", [False, True])
def test_bad_keys_are_refused_with_gymnasiums_reason_and_the_wrapper_named(vector: bool) -> None:
    cls = anywrap.vector.FilterObservation if vector else anywrap.FilterObservation
    env = _timed_vector() if vector else _timed()
    name = "anywrap.vector.FilterObservation" if vector else "anywrap.FilterObservation"
    with pytest.raises(ValueError, match=rf"{name}: All the `filter_keys` must be included"):
        cls(env, ["speed"])
    with pytest.raises(TypeError, match=rf"{name}: All filter keys must be strings"):
        cls(env, [0])
    with pytest.raises(TypeError, match=rf"{name}: Expects `filter_keys` to be a Sequence"):
        cls(env, {"obs"})
    box = gym.make_vec("Pendulum-v1", 2) if vector else gym.make("Pendulum-v1")
    with pytest.raises(ValueError, match=rf"{name}: FilterObservation wrapper is only usable"):
        cls(box, ["obs"])


class _DropTime(gym.Wrapper):
    def step(self, action):  # type: ignore[no-untyped-def]
        obs, *rest = self.env.step(action)
        return {"obs": obs["obs"]}, *rest


def test_an_observation_without_the_entries_is_refused_naming_the_wrapper() -> None:
    env = anywrap.FilterObservation(_DropTime(_timed()), ["time"])
    env.reset(seed=0)
    with pytest.raises(
        ValueError,
        match=r"anywrap\.FilterObservation: expected a dict observation with the entries "
        r"\['time'\], got dict of \['obs'\]",
    ):
        env.step(np.zeros(1, np.float32))
