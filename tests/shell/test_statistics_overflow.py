"""Statistics that overflow (issue 34): a 1e30 sample in float32 statistics makes the
variance inf and, as in Gymnasium, every later observation normalises to 0. anywrap
keeps those numbers, warns once (host statistics: no device sync on the step path),
and save_state refuses to write what load_state could not take back."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import NormalizeObservation as GymNormalizeObservation

import anywrap
from anywrap.checkpoint import CheckpointError

pytest.importorskip("safetensors")


class Spike(gym.Env):
    """Counts up, with one observation of 1e30 at step 3."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.ones(2, np.float32), {}

    def step(self, action):
        self.t += 1
        obs = np.full(2, 1e30 if self.t == 3 else self.t, np.float32)
        return obs, 1.0, False, False, {}


def _ours(env):
    return [
        str(w.message)
        for w in env
        if "anywrap" in str(w.message) and "no longer finite" in str(w.message)
    ]


def test_the_overflow_keeps_gymnasiums_numbers_and_warns_once():
    ours, theirs = anywrap.NormalizeObservation(Spike()), GymNormalizeObservation(Spike())
    ours.reset(seed=0)
    theirs.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2100):  # past two of the periodic checks
            np.testing.assert_array_equal(ours.step(0)[0], theirs.step(0)[0])
    messages = _ours(caught)
    assert len(messages) == 1, messages
    assert messages[0].startswith("anywrap.NormalizeObservation: the running var (float32)")
    assert "stats_dtype='float64'" in messages[0]


def test_finite_statistics_never_warn():
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    env.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(1100):
            if any(env.step(env.action_space.sample())[2:4]):
                env.reset()
    assert _ours(caught) == []


@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_save_state_refuses_overflowed_statistics_and_writes_nothing(tmp_path, library):
    env = Spike()
    if library == "torch":
        pytest.importorskip("torch")
        env = anywrap.ToTorch(env)
    env = anywrap.NormalizeObservation(env)
    env.reset(seed=0)
    path = tmp_path / "stats.safetensors"
    for _ in range(2):
        env.step(0)
    anywrap.save_state(env, path)  # still finite: saved, and loads back
    anywrap.load_state(env, path)
    before = path.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        env.step(0)  # the spike
    with pytest.raises(
        CheckpointError,
        match=r"anywrap.save_state: expected finite statistics, got 0\.NormalizeObservation\.var",
    ):
        anywrap.save_state(env, path)
    assert path.read_bytes() == before  # the previous file is intact
