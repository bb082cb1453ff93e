"""Contract 2, the same numbers: on NumPy, every wrapper that Gymnasium has gives
Gymnasium's outputs on the same trajectory, run side by side (bit for bit unless
the case says otherwise). Wall-clock episode times are left out: they are clocks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from contracts.case import Case, cases_where


def _same(a: Any, b: Any, rtol: float, where: str) -> None:
    if isinstance(b, dict):
        assert isinstance(a, dict), (where, type(a))
        for key in b:
            if key != "t":  # a wall clock
                assert key in a, (where, key, sorted(a))
                _same(a[key], b[key], rtol, f"{where}[{key!r}]")
        return
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, rtol, f"{where}[{i}]")
        return
    x, y = np.asarray(a), np.asarray(b)
    if y.dtype == object:  # Gymnasium's packed final observations
        assert x.dtype == object and x.shape == y.shape, where
        for i in np.ndindex(y.shape):
            if y[i] is None:
                assert x[i] is None, where
            else:
                _same(x[i], y[i], rtol, f"{where}[{i}]")
        return
    assert x.shape == y.shape, (where, x.shape, y.shape)
    if rtol == 0.0:
        assert x.dtype == y.dtype, (where, x.dtype, y.dtype)
        np.testing.assert_array_equal(x, y, err_msg=where)
    else:
        np.testing.assert_allclose(x, y, rtol=rtol, err_msg=where)


@pytest.mark.parametrize("case", cases_where(lambda c: c.reference))
def test_the_outputs_are_gymnasiums(case: Case) -> None:
    ours, theirs = case.wrap(case.make_env()), case.wrap_reference(case.make_env())
    space = theirs.action_space
    space.seed(0)
    _same(ours.reset(seed=0), theirs.reset(seed=0), case.rtol, "reset")
    ends = 0
    for t in range(case.steps):
        action = space.sample()
        got = ours.step(np.copy(action))
        want = theirs.step(np.copy(action))
        _same(got, want, case.rtol, f"step {t}")
        done = np.logical_or(np.asarray(want[2]), np.asarray(want[3]))  # torch flags too
        ends += int(np.sum(done))
        if not case.vector and done:
            _same(ours.reset(), theirs.reset(), case.rtol, f"reset after step {t}")
    assert ends > 0 or case.steps < 15  # the run crossed episode ends
