"""anywrap.vector.NormalizeObservation beyond the contract suite: every autoreset mode
(Gymnasium refuses SAME_STEP), masked resets, the final observations."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as gym_vector
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import moments_with_prior

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_gymnasium_refuses_what_anywrap_supports():
    """Gymnasium's vector NormalizeObservation refuses SAME_STEP (with an assert before
    1.4); anywrap's accepts it."""
    with pytest.raises((ValueError, AssertionError)):
        gym_vector.NormalizeObservation(make_vec("CartPole-v1", 2, AutoresetMode.SAME_STEP))
    anywrap.vector.NormalizeObservation(make_vec("CartPole-v1", 2, AutoresetMode.SAME_STEP))


@pytest.mark.parametrize(
    ("mode", "learn_final_obs"),
    [(mode, False) for mode in AutoresetMode] + [(AutoresetMode.SAME_STEP, True)],
)
def test_vector_normalize_observation_every_mode(mode, learn_final_obs):
    """In every mode the statistics are exactly those of the observations an agent sees.

    NEXT_STEP: every returned observation. SAME_STEP: every returned one, plus
    each ``final_obs`` with ``learn_final_obs``. DISABLED: every returned one
    after a step, and after a partial reset only the rows that were reset.
    """
    shadow = make_vec("CartPole-v1", 4, mode)
    envs = anywrap.vector.NormalizeObservation(
        make_vec("CartPole-v1", 4, mode), learn_final_obs=learn_final_obs
    )
    seen: list[np.ndarray] = []
    ref = RunningMeanStd(shape=(4,), dtype=np.float32)  # Gymnasium's, fed what anywrap learns

    def learn(*batches: np.ndarray) -> None:
        seen.extend(batches)
        ref.update(np.concatenate(batches))

    obs, _ = envs.reset(seed=2)
    raw, _ = shadow.reset(seed=2)
    learn(raw)
    np.testing.assert_allclose(obs, (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon), 1e-5, 1e-5)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(250):
        actions = rng.integers(0, 2, size=4)
        obs, _, term, trunc, info = envs.step(actions)
        raw, _, _, _, raw_info = shadow.step(actions)
        rows = []
        if mode is AutoresetMode.SAME_STEP and "final_obs" in raw_info:
            rows = [f for f, m in zip(raw_info["final_obs"], raw_info["_final_obs"]) if m]
        learn(raw, *([np.stack(rows)] if rows and learn_final_obs else []))
        want_obs = (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon)
        np.testing.assert_allclose(obs, want_obs, rtol=1e-5, atol=1e-5)
        if rows:
            finals += len(rows)
            # final_obs comes back normalised with the same statistics as obs:
            # Gymnasium's RunningMeanStd fed the same batches, and its formula.
            m = info["_final_obs"]
            got = np.stack([f for f, k in zip(info["final_obs"], m) if k])
            want = (np.stack(rows) - ref.mean) / np.sqrt(ref.var + envs.epsilon)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        done = np.logical_or(term, trunc)
        if mode is AutoresetMode.DISABLED and done.any():
            obs, _ = envs.reset(options={"reset_mask": done})
            raw, _ = shadow.reset(options={"reset_mask": done})
            learn(raw[done])
            want_obs = (raw - ref.mean) / np.sqrt(ref.var + envs.epsilon)
            np.testing.assert_allclose(obs, want_obs, rtol=1e-5, atol=1e-5)
    if mode is AutoresetMode.SAME_STEP:
        assert finals > 0
    mean, var, count = moments_with_prior(np.concatenate(seen))
    rms = envs.obs_rms
    np.testing.assert_allclose(float(rms.count), count, rtol=1e-12)
    # Chan's merge in float32 against the float64 closed form: float32 noise.
    np.testing.assert_allclose(rms.mean, mean, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(rms.var, var, rtol=2e-5, atol=1e-6)
