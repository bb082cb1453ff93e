"""The generic path is Gymnasium to the bit.

anywrap's NumPy short cuts (``anywrap.xp.host``, the NumPy routes of
``anywrap.xp.ops``) only skip NumPy's Python wrappers: they compute the same
formulas as the generic Array API path. array-api-strict runs that generic
path over NumPy's own arithmetic, so both must give Gymnasium's numbers
exactly, not within a tolerance."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import (
    GYM_VECTOR,
    ReplayEnv,
    ReplayVectorEnv,
    make_backend,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
    run_vector,
)
from test_backends import single_stack, vector_stack

LIBRARIES = ["numpy", "array_api_strict"]


def exact(got: object, want: object, what: str) -> None:
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_vector_stack_is_gymnasium_to_the_bit(library: str, mode: AutoresetMode) -> None:
    traj = record_vector_trajectory(autoreset_mode=mode)
    theirs = vector_stack(ReplayVectorEnv(traj, make_backend("numpy")), lib=GYM_VECTOR)
    backend = make_backend(library)
    ours = vector_stack(ReplayVectorEnv(traj, backend))
    ref, out = run_vector(theirs["top"]), run_vector(ours["top"])
    steps = 0
    for i, (got, want) in enumerate(zip(out, ref, strict=True)):
        exact(backend.to_numpy(got[1]), want[1], f"obs of event {i}")
        if got[0] == "step":
            steps += 1
            exact(backend.to_numpy(got[2]), want[2], f"reward of event {i}")
    assert steps == traj.num_steps
    for layer, view in (("obs", "obs_rms"), ("rew", "return_rms")):
        for attr in ("mean", "var"):
            mine = backend.to_numpy(getattr(getattr(ours[layer], view), attr))
            exact(mine, getattr(getattr(theirs[layer], view), attr), f"{view}.{attr}")


@pytest.mark.parametrize("library", LIBRARIES)
def test_single_stack_is_gymnasium_to_the_bit(library: str) -> None:
    traj = record_single_trajectory()
    theirs = single_stack(ReplayEnv(traj, make_backend("numpy")), lib=gym.wrappers)
    ref = run_single(theirs["top"])
    backend = make_backend(library)
    out = run_single(single_stack(ReplayEnv(traj, backend))["top"])
    for i, (got, want) in enumerate(zip(out, ref, strict=True)):
        exact(backend.to_numpy(got[1]), want[1], f"obs of event {i}")
        if got[0] == "step":
            exact(backend.to_numpy(got[2]), want[2], f"reward of event {i}")
