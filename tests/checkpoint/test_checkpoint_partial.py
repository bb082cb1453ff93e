"""``load_state(..., strict=False)``: an evaluation stack with fewer wrappers takes the
statistics of the wrappers it has from a training stack's file (issue 34). References
are the training wrappers' own arrays, never anywrap's reading of the file."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from helpers import flat_state

import anywrap
from anywrap.checkpoint import CheckpointError

pytest.importorskip("safetensors")


def training_stack(seed: int = 0) -> gym.Env:
    env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    env = anywrap.RecordEpisodeStatistics(anywrap.NormalizeReward(env))
    env.reset(seed=seed)
    for _ in range(15):
        env.step(np.array([0.5], np.float32))
    return env


def test_strict_refusal_says_that_strict_false_exists(tmp_path):
    path = tmp_path / "train.safetensors"
    anywrap.save_state(training_stack(), path)
    evaluation = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    with pytest.raises(
        CheckpointError, match=r"this stack has \[0\.NormalizeObservation\].*strict=False"
    ):
        anywrap.load_state(evaluation, path)


def test_an_evaluation_stack_takes_the_statistics_of_the_wrappers_it_has(tmp_path):
    train = training_stack()
    path = tmp_path / "train.safetensors"
    anywrap.save_state(train, path)
    source = train.env.env  # the training NormalizeObservation
    evaluation = anywrap.NormalizeObservation(anywrap.TimeLimit(gym.make("Pendulum-v1"), 9))
    evaluation.reset(seed=3)
    evaluation.step(np.array([0.0], np.float32))
    clock = flat_state(evaluation.env)
    anywrap.load_state(evaluation, path, strict=False)
    for field in ("mean", "var", "count"):
        np.testing.assert_array_equal(
            getattr(evaluation.obs_rms, field), getattr(source.obs_rms, field)
        )
    for k, v in flat_state(evaluation.env).items():  # the TimeLimit the file lacks
        np.testing.assert_array_equal(v, clock[k])


def test_the_nth_wrapper_of_a_class_takes_the_nth_saved_one(tmp_path):
    inner = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
    outer = anywrap.NormalizeObservation(anywrap.NormalizeReward(inner))
    outer.reset(seed=0)
    for _ in range(5):
        outer.step(np.array([1.0], np.float32))
    path = tmp_path / "two.safetensors"
    anywrap.save_state(outer, path)
    target = anywrap.NormalizeObservation(anywrap.NormalizeObservation(gym.make("Pendulum-v1")))
    anywrap.load_state(target, path, strict=False)
    np.testing.assert_array_equal(target.obs_rms.var, outer.obs_rms.var)
    np.testing.assert_array_equal(target.env.obs_rms.var, inner.obs_rms.var)
    assert not np.array_equal(target.obs_rms.var, target.env.obs_rms.var)


def test_strict_false_with_no_wrapper_in_common_is_refused_and_changes_nothing(tmp_path):
    path = tmp_path / "train.safetensors"
    anywrap.save_state(training_stack(), path)
    other = anywrap.TimeAwareObservation(gym.make("Pendulum-v1"))
    other.reset(seed=0)
    before = flat_state(other)
    with pytest.raises(
        CheckpointError, match=r"holds the wrappers .*this stack has \[0\.TimeAwareObservation\]"
    ):
        anywrap.load_state(other, path, strict=False)
    for k, v in flat_state(other).items():
        np.testing.assert_array_equal(v, before[k])


def test_strict_must_be_a_bool(tmp_path):
    path = tmp_path / "train.safetensors"
    anywrap.save_state(training_stack(), path)
    with pytest.raises(TypeError, match=r"anywrap.load_state: expected `strict` to be a bool"):
        anywrap.load_state(training_stack(), path, strict="no")


def test_a_functional_evaluation_stack_takes_the_normaliser_of_a_training_file(tmp_path):
    jax = pytest.importorskip("jax")
    pytest.importorskip("gymnax")
    from functional_envs import cleanrl_stack, pendulum

    from anywrap import functional as F

    train = cleanrl_stack(pendulum(4, max_steps=5), buffer_length=3)
    _, state = train.reset(jax.random.key(0))
    for _ in range(6):
        state = train.step(state, jax.numpy.ones((4, 1))).state
    path = tmp_path / "train.safetensors"
    anywrap.save_state(train, path, state=state)
    evaluation = F.NormalizeObservation(pendulum(2, max_steps=5))
    _, fresh = evaluation.reset(jax.random.key(1))
    with pytest.raises(CheckpointError, match="strict=False"):
        anywrap.load_state(evaluation, path, state=fresh)
    loaded = anywrap.load_state(evaluation, path, state=fresh, strict=False)
    saved = next(v for k, v in _obs_stats(state).items())
    np.testing.assert_array_equal(np.asarray(loaded.obs_stats.var), np.asarray(saved.var))


def _obs_stats(state):
    """The training state's observation statistics (found by walking the state)."""
    found = {}

    def walk(x, path=""):
        if hasattr(x, "obs_stats"):
            found[path] = x.obs_stats
        if hasattr(x, "_fields"):
            for f in x._fields:
                walk(getattr(x, f), path + "." + f)

    walk(state)
    return found
