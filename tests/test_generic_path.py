"""The host short cuts compute the generic path's formulas, and both give Gymnasium's
numbers to the bit.

anywrap's NumPy short cuts (``anywrap.xp.host``, the NumPy routes of
``anywrap.xp.ops``, the host branches of the transforms) only skip work the
generic Array API path does: array-api-strict runs that generic path over
NumPy's own arithmetic, so the two agree to the bit, and both agree with
Gymnasium, run side by side, to the bit."""

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

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED]


def exact(got: object, want: object, what: str) -> None:
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=what)


def _vector_run(library: str, mode: AutoresetMode, lib: object = None) -> tuple[dict, list]:
    traj = record_vector_trajectory(autoreset_mode=mode)
    backend = make_backend(library)
    layers = vector_stack(ReplayVectorEnv(traj, backend), **({} if lib is None else {"lib": lib}))
    return layers, [_host(e, backend.to_numpy) for e in run_vector(layers["top"])]


def _host(event: tuple, to_numpy) -> tuple:
    kind, obs = event[0], to_numpy(event[1])
    return (kind, obs, None if kind == "reset" else to_numpy(event[2]))


def _stats(layers: dict, to_numpy) -> dict:
    return {
        f"{view}.{attr}": np.asarray(to_numpy(getattr(getattr(layers[layer], view), attr)))
        for layer, view in (("obs", "obs_rms"), ("rew", "return_rms"))
        for attr in ("mean", "var")
    }


@pytest.mark.parametrize("mode", MODES)
def test_vector_generic_path_and_host_short_cuts_agree_to_the_bit(mode: AutoresetMode) -> None:
    host_layers, host = _vector_run("numpy", mode)
    generic_layers, generic = _vector_run("array_api_strict", mode)
    for i, (a, b) in enumerate(zip(host, generic, strict=True)):
        exact(a[1], b[1], f"obs of event {i}")
        exact(a[2], b[2], f"reward of event {i}")
    strict = make_backend("array_api_strict")
    a_stats, b_stats = _stats(host_layers, np.asarray), _stats(generic_layers, strict.to_numpy)
    for k in a_stats:
        exact(a_stats[k], b_stats[k], k)


@pytest.mark.parametrize("mode", MODES)
def test_vector_stack_gives_gymnasiums_numbers(mode: AutoresetMode) -> None:
    theirs, ref = _vector_run("numpy", mode, lib=GYM_VECTOR)
    ours, out = _vector_run("numpy", mode)
    steps = 0
    for i, (got, want) in enumerate(zip(out, ref, strict=True)):
        exact(got[1], want[1], f"obs of event {i}")
        if got[0] == "step":
            steps += 1
            exact(got[2], want[2], f"reward of event {i}")
    assert steps > 0
    mine, gyms = _stats(ours, np.asarray), _stats(theirs, np.asarray)
    for k in mine:
        exact(mine[k], gyms[k], k)


@pytest.mark.parametrize("library", ["numpy", "array_api_strict"])
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
            if "episode" in want[5]:
                exact(backend.to_numpy(got[5]["episode"]["r"]), want[5]["episode"]["r"], "return")
                exact(backend.to_numpy(got[5]["episode"]["l"]), want[5]["episode"]["l"], "length")
