"""Ring pointers and fills that no run produces are refused by load_state (issue 34:
a FrameStackObservation ``newest`` past its ring, or a DelayObservation ``count`` past
``delay + 1``, loaded without a word), while every file that save_state writes, at any
point of a run, loads back."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from helpers import flat_state
from safetensors.numpy import load_file, save_file

import anywrap
from anywrap.checkpoint import CheckpointError

pytest.importorskip("safetensors")

WRAPPERS = {
    "FrameStackObservation": (lambda A, e, k: A.FrameStackObservation(e, k), ("newest", "count")),
    "DelayObservation": (lambda A, e, k: A.DelayObservation(e, k - 1), ("count",)),
    "StickyAction": (
        lambda A, e, k: A.StickyAction(e, 0.5, repeat_action_duration=(1, k)),
        ("length", "taken", "last"),
    ),
}


def _stack(name, vector, size):
    A = anywrap.vector if vector else anywrap
    env = (
        gym.make_vec("CartPole-v1", 3, vectorization_mode="sync")
        if vector
        else gym.make("CartPole-v1")
    )
    return WRAPPERS[name][0](A, env, size)


def _step(env, vector, rng):
    action = rng.integers(0, 2, 3) if vector else int(rng.integers(0, 2))
    done = env.step(action)[2:4]
    if not vector and (done[0] or done[1]):
        env.reset()


@pytest.mark.parametrize("size", [1, 2, 4])
@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_every_saved_file_loads_back_and_a_pointer_past_the_ring_is_refused(
    tmp_path, name, vector, size
):
    env = _stack(name, vector, size)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    path = tmp_path / "s.safetensors"
    for _ in range(40):  # several episodes, every fill of the ring
        _step(env, vector, rng)
        anywrap.save_state(env, path)
        anywrap.load_state(_stack(name, vector, size), path)
    saved = load_file(path)
    for field in WRAPPERS[name][1]:
        key = next(k for k in saved if k.rpartition(".")[2] == field)
        bad = dict(saved, **{key: np.full_like(saved[key], 2 * size + 3)})
        bad_path = tmp_path / "bad.safetensors"
        save_file(bad, bad_path, metadata={"format": "anywrap.stack/1", "layers": f"0.{name}"})
        target = _stack(name, vector, size)
        target.reset(seed=1)
        before = flat_state(target)
        with pytest.raises(CheckpointError, match=rf"'(\w+\.)?{field}' must be in \[0, "):
            anywrap.load_state(target, bad_path)
        for k, v in flat_state(target).items():
            np.testing.assert_array_equal(v, before[k])


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_a_sticky_series_past_its_length_ends_at_the_next_repeat(tmp_path, vector):
    """A loaded StickyAction state with more repeats taken than its series' length (each
    in range, but no run makes the pair) ends that series at its next repeat, instead of
    repeating the action for good."""
    env = _stack("StickyAction", vector, 4)
    env.reset(seed=0)
    path = tmp_path / "s.safetensors"
    anywrap.save_state(env, path)
    saved = load_file(path)
    key = {f: next(k for k in saved if k.endswith(f".machine.{f}")) for f in ("length", "taken")}
    forged = dict(saved)
    for field, value in (("length", 2), ("taken", 3), ("sticky", True), ("has_last", True)):
        k = next(k for k in saved if k.endswith(f".machine.{field}"))
        forged[k] = np.full_like(saved[k], value)
    save_file(forged, path, metadata={"format": "anywrap.stack/1", "layers": "0.StickyAction"})
    anywrap.load_state(env, path)
    env.step(np.zeros(3, int) if vector else 0)
    state = flat_state(env)
    assert not state[key["taken"]].any() and not state[key["length"]].any()
