"""Saving and loading a wrapper stack's statistics, and evaluating with frozen ones.

Training saves the normalisers' statistics with ``anywrap.save_state``
(a safetensors file, written atomically: an interrupted save leaves the
previous file whole). Evaluation builds the same stack, loads them with
``anywrap.load_state`` and switches ``update_running_mean`` off, so that
evaluation episodes do not move the statistics the policy was trained with.
A stack's file also holds each sub-env's running return, so it loads into a
stack with as many sub-envs; to evaluate on another number of sub-envs,
share the statistics object instead (``eval.obs_rms = train.obs_rms``).

Run: ``python docs/recipes/save_load_stats.py [FOLDER]`` (default: the
current folder).
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import anywrap


def make_stack(num_envs: int) -> gym.vector.VectorEnv:
    envs = gym.make_vec("Pendulum-v1", num_envs=num_envs, vectorization_mode="sync")
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.ClipAction(envs)
    envs = anywrap.vector.NormalizeObservation(envs)
    envs = anywrap.vector.TransformObservation(envs, lambda obs: np.clip(obs, -10, 10))
    envs = anywrap.vector.NormalizeReward(envs, gamma=0.99)
    return anywrap.vector.TransformReward(envs, lambda reward: np.clip(reward, -10, 10))


def layer(envs, kind: type):
    """The wrapper of type ``kind`` in a stack."""
    while not isinstance(envs, kind):
        envs = envs.env
    return envs


def main(folder: Path) -> None:
    path = folder / "stats.safetensors"
    train = make_stack(num_envs=8)
    train.reset(seed=0)
    train.action_space.seed(0)
    for step in range(1, 401):
        train.step(train.action_space.sample())
        if step % 200 == 0:  # a checkpoint every 200 steps
            anywrap.save_state(train, path)
    trained = layer(train, anywrap.vector.NormalizeObservation).obs_rms

    evaluate = make_stack(num_envs=8)
    anywrap.load_state(evaluate, path)
    norm = layer(evaluate, anywrap.vector.NormalizeObservation)
    norm.update_running_mean = False
    layer(evaluate, anywrap.vector.NormalizeReward).update_running_mean = False
    print(f"loaded: count {norm.obs_rms.count:.0f}, mean {norm.obs_rms.mean.round(3)}")
    assert np.array_equal(norm.obs_rms.mean, trained.mean)
    assert np.array_equal(norm.obs_rms.var, trained.var)

    evaluate.reset(seed=1)
    for _ in range(200):
        _, _, _, _, info = evaluate.step(np.zeros((8, 1), np.float32))
    print(f"evaluation returns {info['episode']['r'].round(1)}")
    print(f"statistics unchanged by evaluation: {np.array_equal(norm.obs_rms.mean, trained.mean)}")
    assert np.array_equal(norm.obs_rms.mean, trained.mean)

    # Two sub-envs, sharing the training statistics (the same object, not a copy).
    small = make_stack(num_envs=2)
    small_norm = layer(small, anywrap.vector.NormalizeObservation)
    small_norm.obs_rms = layer(train, anywrap.vector.NormalizeObservation).obs_rms
    small_norm.update_running_mean = False
    small.reset(seed=2)
    obs, *_ = small.step(np.zeros((2, 1), np.float32))
    print(f"two sub-envs, shared statistics: obs {obs.shape}, count {small_norm.obs_rms.count:.0f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd())
