"""TransformAction (single and vector) and the three Vectorize* wrappers: Gymnasium's
numbers and dtypes on NumPy, the batch's own library elsewhere, and the batch given
never written over (Gymnasium's writes into it)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from catalogue_envs import LibraryEnv, LibraryVectorEnv
from helpers import make_backend

import anywrap

LIBRARIES = ["numpy", "jax", "torch", "array_api_strict", "tensorflow"]


def _vector(mode: str = "NextStep", env_id: str = "Pendulum-v1") -> gym.vector.VectorEnv:
    return gym.make_vec(
        env_id,
        num_envs=3,
        vectorization_mode="sync",
        max_episode_steps=4,
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode(mode)},
    )


def _in(library: str, envs: gym.vector.VectorEnv) -> Any:
    return envs if library == "numpy" else LibraryVectorEnv(envs, library)


def _host(backend: Any, x: Any) -> np.ndarray:
    return np.asarray(x) if isinstance(x, np.ndarray | np.generic) else backend.to_numpy(x)


@pytest.mark.parametrize("library", LIBRARIES)
def test_vectorized_observation_wrappers_give_gymnasiums_rows(library: str) -> None:
    """A wrapper that changes the dtype (DtypeObservation to float64: anywrap's, which
    casts in any library, against Gymnasium's) and one that keeps the space
    (TransformObservation): Gymnasium's values and dtype, in the library."""
    backend = make_backend(library)
    double = {"func": lambda o: o * 2, "observation_space": None}
    for ours_wrapper, wrapper, kwargs in (
        (anywrap.DtypeObservation, gym.wrappers.DtypeObservation, {"dtype": np.float64}),
        (gym.wrappers.TransformObservation, gym.wrappers.TransformObservation, double),
    ):
        envs = _in(library, _vector())
        ours = anywrap.vector.VectorizeTransformObservation(envs, ours_wrapper, **kwargs)
        theirs = gym.wrappers.vector.VectorizeTransformObservation(_vector(), wrapper, **kwargs)
        assert ours.observation_space == theirs.observation_space
        pairs = [(ours.reset(seed=0)[0], theirs.reset(seed=0)[0])]
        for _ in range(5):
            actions = np.full((3, 1), 0.5, np.float32)
            pairs.append((ours.step(backend.to_backend(actions))[0], theirs.step(actions)[0]))
        narrow = backend.float_dtype == "float32"  # JAX without x64 holds float64 as float32
        for got, want in pairs:
            assert isinstance(got, backend.array_type)
            host = _host(backend, got)
            if narrow and want.dtype == np.float64:
                assert host.dtype == np.float32
                np.testing.assert_allclose(host, want, rtol=1e-7)
            else:
                assert host.dtype == want.dtype
                np.testing.assert_array_equal(host, want)


def test_vectorized_observations_map_final_observations_in_same_step_mode() -> None:
    def double(o: Any) -> Any:
        return o * 2

    """(Gymnasium's refuses SAME_STEP envs: the reference is the bare env, doubled.)"""
    ours = anywrap.vector.VectorizeTransformObservation(
        _vector("SameStep"), gym.wrappers.TransformObservation, func=double, observation_space=None
    )
    bare = _vector("SameStep")
    np.testing.assert_array_equal(ours.reset(seed=0)[0], bare.reset(seed=0)[0] * 2)
    for _ in range(4):
        got, want = ours.step(np.zeros((3, 1), np.float32)), bare.step(np.zeros((3, 1), np.float32))
        np.testing.assert_array_equal(got[0], want[0] * 2)
    assert "final_obs" in want[4]
    for a, b in zip(got[4]["final_obs"], want[4]["final_obs"]):
        np.testing.assert_array_equal(a, b * 2)


@pytest.mark.parametrize("library", LIBRARIES)
def test_vectorized_actions_and_rewards_in_the_batchs_library(library: str) -> None:
    backend = make_backend(library)
    envs = anywrap.vector.VectorizeTransformReward(
        anywrap.vector.VectorizeTransformAction(
            _in(library, _vector()),
            gym.wrappers.TransformAction,
            func=lambda a: a * 0,
            action_space=None,
        ),
        gym.wrappers.TransformReward,
        func=lambda r: r * -1,
    )
    ref = gym.wrappers.vector.TransformReward(_vector(), lambda r: r * -1)
    envs.reset(seed=0), ref.reset(seed=0)
    for _ in range(3):
        got = envs.step(backend.to_backend(np.full((3, 1), 2.0, np.float32)))
        want = ref.step(np.zeros((3, 1), np.float32))  # the actions were zeroed
        assert isinstance(got[1], backend.array_type)
        np.testing.assert_allclose(_host(backend, got[1]), want[1], rtol=1e-6)
        np.testing.assert_array_equal(_host(backend, got[0]), want[0])
    assert _host(backend, got[1]).dtype == np.dtype(backend.float_dtype) or library != "numpy"


def test_vectorized_maps_never_write_over_the_batch_given() -> None:
    actions = np.full((3, 1), 2.0, np.float32)
    rewards = np.array([1.0, -1.0, 3.0])
    vec = anywrap.vector.VectorizeTransformAction(
        _vector(), gym.wrappers.TransformAction, func=lambda a: a * 0, action_space=None
    )
    np.testing.assert_array_equal(vec.actions(actions), np.zeros((3, 1), np.float32))
    rew = anywrap.vector.VectorizeTransformReward(_vector(), gym.wrappers.TransformReward, func=abs)
    np.testing.assert_array_equal(rew.rewards(rewards), [1.0, 1.0, 3.0])
    assert (actions == 2.0).all() and rewards[1] == -1.0


def test_a_discrete_wrapper_vectorized_takes_the_envs_action_dtype() -> None:
    """A single wrapper that changes the action space (Gymnasium's DiscretizeAction, which
    Gymnasium's own vectorizer cannot take: it has no ``func``): each row is the single
    wrapper's action, in the env's dtype."""
    discretize = pytest.importorskip("gymnasium.wrappers").__dict__.get("DiscretizeAction")
    if discretize is None:
        pytest.skip("Gymnasium before 1.4 has no DiscretizeAction")
    ours = anywrap.vector.VectorizeTransformAction(_vector(), discretize, bins=5)
    single = discretize(gym.make("Pendulum-v1"), bins=5)
    assert ours.single_action_space == single.action_space == gym.spaces.Discrete(5)
    got = ours.actions(np.array([0, 2, 4]))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.stack([single.action(i) for i in (0, 2, 4)]))


@pytest.mark.parametrize("library", ["jax", "torch", "array_api_strict", "tensorflow"])
def test_transform_action_hands_func_the_agents_array(library: str) -> None:
    """``func`` gets the agent's array as given, and the env steps as under Gymnasium's
    TransformAction (single and vector) on the same actions in NumPy."""
    backend = make_backend(library)
    seen: list[Any] = []

    def func(a: Any) -> Any:
        seen.append(a)
        return a * 0.5

    env = anywrap.TransformAction(LibraryEnv(gym.make("Pendulum-v1"), library), func, None)
    envs = anywrap.vector.TransformAction(_in(library, _vector()), func)
    ref = gym.wrappers.TransformAction(gym.make("Pendulum-v1"), lambda a: a * 0.5, None)
    refs = gym.wrappers.vector.TransformAction(_vector(), lambda a: a * 0.5)
    for e in (env, envs, ref, refs):
        e.reset(seed=0)
    one, many = np.ones(1, np.float32), np.ones((3, 1), np.float32)
    got = env.step(backend.to_backend(one))[0], envs.step(backend.to_backend(many))[0]
    want = ref.step(one)[0], refs.step(many)[0]
    assert len(seen) == 2 and all(isinstance(a, backend.array_type) for a in seen)
    for g, w in zip(got, want):
        assert isinstance(g, backend.array_type)
        np.testing.assert_allclose(_host(backend, g), w, rtol=1e-6)


@pytest.mark.parametrize("vector", [False, True])
def test_a_func_that_cannot_be_called_is_refused_naming_the_wrapper(vector: bool) -> None:
    if vector:
        with pytest.raises(TypeError, match=r"anywrap\.vector\.TransformAction: expected `func`"):
            anywrap.vector.TransformAction(_vector(), 3)
        with pytest.raises(
            TypeError, match=r"anywrap\.vector\.VectorizeTransformReward: expected `wrapper`"
        ):
            anywrap.vector.VectorizeTransformReward(_vector(), None)
    else:
        with pytest.raises(TypeError, match=r"anywrap\.TransformAction: expected `func`"):
            anywrap.TransformAction(gym.make("Pendulum-v1"), 3, None)


@pytest.mark.parametrize("library", LIBRARIES)
def test_anywraps_discretisers_vectorized_run_in_the_batchs_library(library: str) -> None:
    """Gymnasium has no vector discretisers; the README's recipe makes them from anywrap's
    single ones, which map a row in any library (Gymnasium's single one is the reference)."""
    discretize = gym.wrappers.__dict__.get("DiscretizeAction")
    if discretize is None:
        pytest.skip("Gymnasium before 1.4 has no DiscretizeAction")
    backend = make_backend(library)
    envs = anywrap.vector.VectorizeTransformAction(
        _in(library, _vector()), anywrap.DiscretizeAction, bins=5
    )
    obs = anywrap.vector.VectorizeTransformObservation(
        _in(library, _vector()), anywrap.DiscretizeObservation, bins=3, multidiscrete=True
    )
    single = discretize(gym.make("Pendulum-v1"), bins=5)
    singles = gym.wrappers.DiscretizeObservation(
        gym.make("Pendulum-v1"), bins=3, multidiscrete=True
    )
    got = envs.actions(backend.to_backend(np.array([0, 2, 4])))
    assert isinstance(got, backend.array_type)
    np.testing.assert_array_equal(
        _host(backend, got), np.stack([single.action(i) for i in (0, 2, 4)])
    )
    raw = _vector().reset(seed=0)[0]
    got = obs.reset(seed=0)[0]
    assert isinstance(got, backend.array_type)
    np.testing.assert_array_equal(
        _host(backend, got), np.stack([singles.observation(r) for r in raw])
    )


def _cartpoles() -> Any:
    return gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")


def _thirds(x: Any) -> Any:
    return x.astype(np.float64) / 3  # the declared space stays CartPole's float32 Box


def _halves(x: Any) -> Any:
    return x * 0.5


def test_vectorized_rows_take_gymnasiums_dtypes() -> None:
    """Where the space stays, Gymnasium writes the rows into the incoming batch: its dtype
    (float64 here), not the space's; rows that cast to the space's dtype only unsafely
    (floats into int32) are refused by name, as Gymnasium's ``same_kind`` cast refuses them
    (they were truncated in silence)."""
    outs = []
    for mod in (gym.wrappers.vector, anywrap.vector):
        env = mod.VectorizeTransformObservation(
            mod.TransformObservation(_cartpoles(), _thirds),
            wrapper=gym.wrappers.TransformObservation, func=_halves, observation_space=None,
        )  # fmt: skip
        outs.append(env.reset(seed=0)[0])
    assert outs[0].dtype == outs[1].dtype == np.float64
    np.testing.assert_array_equal(outs[1], outs[0])
    for mod in (gym.wrappers.vector, anywrap.vector):
        env = mod.VectorizeTransformObservation(
            mod.DtypeObservation(_cartpoles(), np.int32),
            wrapper=gym.wrappers.TransformObservation, func=_halves, observation_space=None,
        )  # fmt: skip
        named = r"anywrap\.vector\.VectorizeTransformObservation: " if mod is anywrap.vector else ""
        with pytest.raises(TypeError, match=named + ".*float64.*int32"):
            env.reset(seed=0)


def test_vectorized_actions_take_a_list_as_gymnasiums_do() -> None:
    """A list of actions (a host value, which every wrapper takes) failed on ``.shape``."""
    outs = []
    for mod in (gym.wrappers.vector, anywrap.vector):
        envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        env = mod.VectorizeTransformAction(envs, gym.wrappers.ClipAction)
        env.reset(seed=0)
        outs.append(env.step([[3.0], [-0.3]])[0])
    np.testing.assert_array_equal(outs[1], outs[0])


def test_vectorized_torch_rows_of_a_new_dtype_read_nothing_on_the_host() -> None:
    """The cast rule's check reads NumPy rows only: torch rows (here float64, into a float64
    space) are cast on their device, with no conversion to NumPy (which a CUDA tensor
    refuses, and which the first version of the check made)."""
    torch = pytest.importorskip("torch")
    from helpers import torch_no_host_sync

    envs = anywrap.vector.VectorizeTransformObservation(
        _in("torch", _vector()), anywrap.DtypeObservation, dtype=np.float64
    )
    batch = envs.env.reset(seed=0)[0]  # the env's float32 tensors (its own step reads actions)
    with torch_no_host_sync():
        obs = envs.observations(batch)
    assert isinstance(obs, torch.Tensor) and obs.dtype == torch.float64
    torch.testing.assert_close(obs, batch.double())
