"""DictInfoToList: Gymnasium's list of per-env dicts (masked entries, nested dicts), with
the values left in their library."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from catalogue_envs import LibraryVectorEnv
from helpers import make_backend

import anywrap

LIBRARIES = ["numpy", "jax", "torch", "array_api_strict", "tensorflow"]


def _envs() -> gym.vector.VectorEnv:
    envs = gym.make_vec("Pendulum-v1", num_envs=3, vectorization_mode="sync", max_episode_steps=3)
    return gym.wrappers.vector.RecordEpisodeStatistics(envs)


class _MoreInfo(gym.vector.VectorWrapper):
    """Adds an unmasked entry and a masked one (env 1 only) to every info."""

    def step(self, actions: Any) -> Any:
        *out, info = self.env.step(actions)
        extra = {
            "x": np.arange(3.0),
            "y": np.array([5, 6, 7]),
            "_y": np.array([False, True, False]),
        }
        return (*out, {**info, **extra})


def _same_lists(got: list[dict], want: list[dict], backend: Any) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        for k in w:
            if isinstance(w[k], dict):
                _same_lists([g[k]], [w[k]], backend)
            elif k != "t":  # a wall clock
                assert isinstance(
                    g[k], np.generic if backend.name == "numpy" else backend.array_type
                )
                host = g[k] if backend.name == "numpy" else backend.to_numpy(g[k])
                np.testing.assert_allclose(host, w[k], rtol=1e-6)


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_lists_are_gymnasiums_with_values_in_their_library(library: str) -> None:
    backend = make_backend(library)
    bare = _MoreInfo(_envs())
    ours = anywrap.vector.DictInfoToList(
        bare if library == "numpy" else LibraryVectorEnv(bare, library)
    )
    theirs = gym.wrappers.vector.DictInfoToList(_MoreInfo(_envs()))
    assert ours.reset(seed=0)[1] == theirs.reset(seed=0)[1] == [{}, {}, {}]
    episodes = 0
    for _ in range(7):
        got, want = (
            ours.step(np.zeros((3, 1), np.float32))[4],
            theirs.step(np.zeros((3, 1), np.float32))[4],
        )
        _same_lists(got, want, backend)
        episodes += sum("episode" in w for w in want)
        assert {"x", "y"} <= set(want[1]) and "y" not in want[0] and "x" in want[0]
    assert episodes == 6  # two ends per sub-env: the masked nested entries were there


def test_an_entry_without_one_row_per_env_is_refused_naming_the_wrapper() -> None:
    class _Bad(gym.vector.VectorWrapper):
        def step(self, actions: Any) -> Any:
            *out, _ = self.env.step(actions)
            return (*out, {"x": np.zeros(2)})

    envs = anywrap.vector.DictInfoToList(_Bad(_envs()))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"anywrap\.vector\.DictInfoToList: expected info\['x'\]"):
        envs.step(np.zeros((3, 1), np.float32))


def test_a_vector_env_without_spaces_is_taken() -> None:
    """DictInfoToList reads ``num_envs`` alone, at each step: a bare VectorEnv subclass
    (Gymnasium's own tests build one, its num_envs set later) is taken as Gymnasium's is."""

    class _InfoOnly(gym.vector.VectorEnv):
        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return None, {"a": np.array([1, 2])}

    envs = anywrap.vector.DictInfoToList(_InfoOnly())
    envs.unwrapped.num_envs = 2
    assert envs.reset()[1] == [{"a": 1}, {"a": 2}]


def test_tuple_final_observations_of_a_torch_env_are_split_per_sub_env():
    """Blackjack's Tuple observations in SAME_STEP mode, through NumpyToTorch: the final
    observation is a tuple of batches, each sub-env's row taken from each (it was refused)."""
    torch = pytest.importorskip("torch")

    def make():
        return gym.make_vec(
            "Blackjack-v1", num_envs=2, vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
        )  # fmt: skip

    theirs = gym.wrappers.vector.DictInfoToList(make())
    ours = anywrap.vector.DictInfoToList(anywrap.vector.NumpyToTorch(make()))
    theirs.reset(seed=0)
    ours.reset(seed=0)
    ended = 0
    for _ in range(3):
        action = np.ones(2, dtype=np.int64)  # hit: an episode ends within a few steps
        want, got = theirs.step(action)[4], ours.step(torch.as_tensor(action))[4]
        assert [sorted(i) for i in got] == [sorted(i) for i in want]
        for w, g in zip(want, got):
            if "final_obs" in w:
                ended += 1
                assert all(isinstance(x, torch.Tensor) for x in g["final_obs"])
                assert tuple(int(x) for x in g["final_obs"]) == tuple(w["final_obs"])
    assert ended
