"""Statistics assigned from a wrapper of another library (issue 35): moved into this
wrapper's library and device (a copy), where the first step used to fail with
``'numpy.dtypes.Float32DType' object has no attribute 'dtype'``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import anywrap

torch = pytest.importorskip("torch")


def _trained_numpy() -> anywrap.vector.NormalizeObservation:
    train = anywrap.vector.NormalizeObservation(
        gym.make_vec("Pendulum-v1", num_envs=4, vectorization_mode="sync")
    )
    train.reset(seed=0)
    for _ in range(5):
        train.step(np.zeros((4, 1), np.float32))
    return train


def _torch_eval(**kw) -> anywrap.NormalizeObservation:
    from array_envs import BackendEnv
    from helpers import make_backend

    env = BackendEnv(gym.make("Pendulum-v1"), make_backend("torch"))
    return anywrap.NormalizeObservation(env, **kw)


def test_numpy_statistics_assigned_to_a_torch_stack_move_there():
    train = _trained_numpy()
    evaluate = _torch_eval(update_running_mean=False)
    evaluate.reset(seed=1)
    evaluate.obs_rms = train.obs_rms
    assert isinstance(evaluate.obs_rms.mean, torch.Tensor)
    np.testing.assert_array_equal(evaluate.obs_rms.mean.numpy(), train.obs_rms.mean)
    np.testing.assert_array_equal(evaluate.obs_rms.var.numpy(), train.obs_rms.var)
    assert float(evaluate.obs_rms.count) == float(train.obs_rms.count) == 24.0001
    obs, *_ = evaluate.step(torch.zeros(1))  # the step that failed
    raw = evaluate.env.unwrapped.state  # Pendulum's (theta, theta dot)
    expected = (np.array([np.cos(raw[0]), np.sin(raw[0]), raw[1]]) - train.obs_rms.mean) / np.sqrt(
        train.obs_rms.var + 1e-8
    )
    np.testing.assert_allclose(obs.numpy(), expected, rtol=1e-5, atol=1e-6)
    before = evaluate.obs_rms.mean.clone()
    train.step(np.ones((4, 1), np.float32))  # a copy: the train stack's updates stay there
    assert torch.equal(evaluate.obs_rms.mean, before)


def test_torch_statistics_assigned_to_a_numpy_stack_move_there():
    train = _torch_eval()
    train.reset(seed=0)
    for _ in range(3):
        train.step(torch.zeros(1))
    evaluate = _trained_numpy()
    evaluate.obs_rms = train.obs_rms
    assert isinstance(evaluate.obs_rms.mean, np.ndarray)
    np.testing.assert_array_equal(evaluate.obs_rms.mean, train.obs_rms.mean.numpy())
    evaluate.step(np.zeros((4, 1), np.float32))


def test_statistics_of_one_library_stay_shared():
    a, b = _trained_numpy(), _trained_numpy()
    b.obs_rms = a.obs_rms
    assert b.obs_rms is a.obs_rms
