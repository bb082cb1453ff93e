"""With JAX's 64-bit mode on, 64-bit observations and rewards stay 64-bit through every
vector wrapper over ``ToJax`` (from NumPy and from PyTorch), with no narrowing warning,
and int64 observations past int32 keep their values (issue 34). NormalizeObservation
is the exception Gymnasium makes too: its observation space, and so its output, is
float32. Run in a fresh interpreter, since x64 is set once per process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("torch")

SCRIPT = textwrap.dedent(
    """
    import warnings
    import numpy as np, gymnasium as gym, jax, jax.numpy as jnp
    import anywrap
    assert jax.config.jax_enable_x64
    A = anywrap.vector
    WRAPPERS = {
        "NormalizeReward": lambda e: A.NormalizeReward(e),
        "RecordEpisodeStatistics": lambda e: A.RecordEpisodeStatistics(e),
        "TimeLimit": lambda e: A.TimeLimit(e, 5),
        "TimeAwareObservation": lambda e: A.TimeAwareObservation(e),
        "DelayObservation": lambda e: A.DelayObservation(e, 2),
        "FrameStackObservation": lambda e: A.FrameStackObservation(e, 3),
        "MaxAndSkipObservation": lambda e: A.MaxAndSkipObservation(e, 2),
        "ClipReward": lambda e: A.ClipReward(e, -1, 1),
        "RescaleObservation": lambda e: A.RescaleObservation(e, -1.0, 1.0),
        "FlattenObservation": lambda e: A.FlattenObservation(e),
        "ReshapeObservation": lambda e: A.ReshapeObservation(e, (3, 1)),
        "ClipAction": lambda e: A.ClipAction(e),
        "RescaleAction": lambda e: A.RescaleAction(e, -1.0, 1.0),
        "StickyAction": lambda e: A.StickyAction(e, 0.3),
        "TransformObservation": lambda e: A.TransformObservation(e, lambda o: o * 2),
        "NormalizeObservation": lambda e: A.NormalizeObservation(e),
    }
    failures = []
    for name, wrap in WRAPPERS.items():
        for source in ("numpy", "torch"):
            env = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
            env = A.DtypeObservation(env, np.float64)
            if source == "torch":
                env = A.ToTorch(env)
            env = wrap(A.ToJax(env))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                env.reset(seed=0)
                for _ in range(7):
                    obs, reward, *_ = env.step(jnp.zeros((2, 1), jnp.float64))
            want = jnp.float32 if name == "NormalizeObservation" else jnp.float64
            narrowed = [str(w.message) for w in caught if "x64" in str(w.message)]
            if obs.dtype != want or reward.dtype != jnp.float64 or narrowed:
                failures.append((name, source, obs.dtype, reward.dtype, narrowed))

    class Big(gym.Env):
        observation_space = gym.spaces.Box(0, 2**40, (2,), np.int64)
        action_space = gym.spaces.Discrete(2)
        def reset(self, *, seed=None, options=None):
            return np.array([5, 2**33 + 7]), {}
        def step(self, action):
            return np.array([5, 2**33 + 7]), 0.0, False, False, {}

    for wrap in (lambda e: anywrap.FrameStackObservation(e, 2),
                 lambda e: anywrap.DelayObservation(e, 1)):
        env = wrap(anywrap.ToJax(Big()))
        env.reset()
        env.step(0)
        obs = env.step(0)[0]
        if obs.dtype != jnp.int64 or int(obs.ravel()[-1]) != 2**33 + 7:
            failures.append((type(env).__name__, obs.dtype, obs))
    print(failures)
    """
)


def test_64_bit_values_stay_64_bit_with_x64_on():
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=dict(os.environ, JAX_ENABLE_X64="1", PYTHONPATH=str(root / "src")),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
