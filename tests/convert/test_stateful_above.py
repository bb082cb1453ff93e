"""A conversion wrapper under every stateful vector wrapper, in every autoreset mode
(issue 34): what the wrapper above gets, ``info["final_obs"]`` and every other array
of info included, is of the conversion's library, and the stack's numbers are those
of the same stack over NumPy without a conversion. (``ToTorch`` under SAME_STEP left
``final_obs`` a NumPy object array of tensors, and ``NormalizeObservation`` above
failed at the first autoreset.)"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import anywrap
from anywrap.convert.converter import convert
from anywrap.tree import leaves
from anywrap.xp import to_numpy

N, STEPS = 3, 30

STATEFUL = {
    "NormalizeObservation": lambda e: anywrap.vector.NormalizeObservation(e),
    "NormalizeReward": lambda e: anywrap.vector.NormalizeReward(e),
    "RecordEpisodeStatistics": lambda e: anywrap.vector.RecordEpisodeStatistics(e),
    "TimeLimit": lambda e: anywrap.vector.TimeLimit(e, 7),
    "TimeAwareObservation": lambda e: anywrap.vector.TimeAwareObservation(e),
    "DelayObservation": lambda e: anywrap.vector.DelayObservation(e, 2),
    "FrameStackObservation": lambda e: anywrap.vector.FrameStackObservation(e, 3),
    "MaxAndSkipObservation": lambda e: anywrap.vector.MaxAndSkipObservation(e, 2),
}


def _array_type(lib: str) -> type:
    if lib == "torch":
        return pytest.importorskip("torch").Tensor
    if lib == "jax":
        return pytest.importorskip("jax").Array
    return pytest.importorskip("tensorflow").Tensor


def _run(stack: Any, mode: AutoresetMode, to_lib: Any) -> list[tuple[tuple, dict]]:
    """Step ``stack`` with CartPole's action 0 (episodes of about ten steps); in
    DISABLED mode reset the sub-envs that ended. Each call's results: its arrays on
    the host, and its info as it came."""
    obs, info = stack.reset(seed=0)
    out = [((to_numpy(obs),), info)]
    for _ in range(STEPS):
        obs, reward, terminated, truncated, info = stack.step(to_lib(np.zeros(N, np.int64)))
        done = to_numpy(terminated) | to_numpy(truncated)
        row = [to_numpy(obs), to_numpy(reward), done]
        # On a device SAME_STEP keeps final_obs in every step's info (with a mask of
        # none where no sub-env ended): compare the rows of the sub-envs that ended.
        real = to_numpy(info["_final_obs"]) if "final_obs" in info else np.zeros(N, bool)
        row.append(real)
        if real.any():
            row.append(_final_rows(info["final_obs"], real))
        out.append((tuple(row), info))
        if mode is AutoresetMode.DISABLED and done.any():
            obs, info = stack.reset(options={"reset_mask": to_lib(done)})
            out.append(((to_numpy(obs),), info))
    return out


def _final_rows(final: Any, real: np.ndarray) -> np.ndarray:
    """The final observations of the sub-envs that ended, one flat row each (zeros for
    the others), from a batch or from Gymnasium's object array."""
    if isinstance(final, np.ndarray) and final.dtype == object:
        rows = [np.asarray(f, np.float64).ravel() if m else None for f, m in zip(final, real)]
        width = next(r.size for r in rows if r is not None)
        return np.stack([np.zeros(width) if r is None else r for r in rows])
    return np.where(real[:, None], to_numpy(final).reshape(N, -1), 0)


CASES = [
    (wrapper, mode)
    for wrapper in sorted(STATEFUL)
    for mode in AutoresetMode
    # MaxAndSkipObservation refuses DISABLED envs (an episode may end within the skip).
    if not (wrapper == "MaxAndSkipObservation" and mode is AutoresetMode.DISABLED)
]


@pytest.mark.parametrize(("wrapper", "mode"), CASES, ids=lambda c: getattr(c, "name", c))
@pytest.mark.parametrize("lib", ["torch", "jax", "tensorflow"])
def test_a_stateful_wrapper_above_a_conversion_gets_the_librarys_arrays(lib, wrapper, mode):
    kind = _array_type(lib)

    def envs():
        return gym.make_vec(
            "CartPole-v1", N, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )

    conversion = anywrap.vector.ArrayConversion(envs(), to=lib)
    ours = STATEFUL[wrapper](conversion)
    reference = STATEFUL[wrapper](envs())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's float64 narrowing, CartPole's own notes
        got = _run(ours, mode, lambda a: convert(a, lib))
        want = _run(reference, mode, lambda a: a)
    assert len(got) == len(want)
    ends = 0
    for (g_arrays, info), (w_arrays, _) in zip(got, want):
        for a, b in zip(g_arrays, w_arrays, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        for leaf in leaves(info):
            if leaf is None or isinstance(leaf, (bool, int, float, str)):
                continue
            assert isinstance(leaf, kind), (wrapper, type(leaf), info)
        ends += len(g_arrays) == 5  # a final observation compared
    assert ends or mode is not AutoresetMode.SAME_STEP
