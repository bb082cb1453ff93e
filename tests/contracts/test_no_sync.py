"""Contracts 3 and 4 on every wrapper that takes device arrays: JAX arrays and
PyTorch tensors stay what they are, and the step path reads no value on the host
(a JAX transfer guard, and a PyTorch function mode that fails on ``.item()``,
``bool()``, ``.cpu()`` and friends). A recorded Pendulum run is replayed in the
library, through episode ends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from contracts.case import Case, cases_where
from helpers import (
    ReplayEnv,
    ReplayVectorEnv,
    jax_no_host_sync,
    make_backend,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
    run_vector,
    torch_no_host_sync,
)

from anywrap.tree import leaves

_GUARDS = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}


def _env(case: Case, library: str) -> Any:
    if case.array_env is not None:
        return case.array_env(library)
    backend = make_backend(library)
    if case.vector:
        return ReplayVectorEnv(record_vector_trajectory(num_envs=4, num_steps=60), backend)
    return ReplayEnv(record_single_trajectory(), backend)


@pytest.mark.parametrize("library", ["jax", "torch"])
@pytest.mark.parametrize("case", cases_where(lambda c: c.replay or c.array_env is not None))
def test_the_step_path_never_reads_the_device(case: Case, library: str) -> None:
    backend = make_backend(library)
    env = case.wrap(_env(case, library))
    run = run_vector if case.vector else run_single
    if case.array_env is not None:
        run = _drive
    run(env, steps=3)  # compiles outside the guard (a compiler reads its constants)
    with _GUARDS[library]():
        out = run(env, steps=case.steps)
    arrays = [x for x in leaves(out[-1][1:]) if hasattr(x, "shape")]
    assert arrays and not any(isinstance(x, np.ndarray) for x in arrays)  # nothing to NumPy
    if "To" not in case.name:  # a conversion's outputs are its target's
        assert isinstance(arrays[0], backend.array_type)


def _drive(env: Any, steps: int) -> list[tuple]:
    """Steps an ``array_env`` case with its own actions (``env.sample_action()`` of the
    innermost env, in its library), resetting at the start only."""
    inner = env.unwrapped
    out: list[tuple] = (
        [("reset", *env.reset(seed=0))] if not getattr(inner, "_driven", False) else []
    )
    inner._driven = True
    for _ in range(steps):
        out.append(("step", *env.step(inner.sample_action())))
    return out
