"""Property tests of the pure transforms, across backends.

Oracles are plain NumPy on the selected data (boolean indexing is fine in a
test), never a copy of the transform's own formula.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import make_backend
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from anywrap.transforms import episodes, moments, returns

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)


def batches(min_rows: int = 1, max_rows: int = 12, width: int = 3):
    return hnp.arrays(
        np.float64, st.tuples(st.integers(min_rows, max_rows), st.just(width)), elements=finite
    )


@settings(max_examples=60, deadline=None)
@given(a=batches(), b=batches())
def test_merging_two_batches_equals_one_concatenated_batch(a, b):
    m0 = moments.init_moments((3,), xp=np, dtype=np.float64, epsilon=1e-12)
    both = moments.update_moments(m0, np.concatenate([a, b]))
    step = moments.update_moments(moments.update_moments(m0, a), b)
    data = np.concatenate([a, b])
    # The 1e-12 prior count (mean 0, var 1) weighs in by about 1e-12 * x^2.
    tol = 1e-9 * (1 + np.max(data**2))
    np.testing.assert_allclose(step.mean, data.mean(axis=0), rtol=1e-9, atol=tol)
    np.testing.assert_allclose(step.var, data.var(axis=0), rtol=1e-7, atol=tol)
    np.testing.assert_allclose(step.mean, both.mean, rtol=1e-9, atol=tol)
    np.testing.assert_allclose(step.var, both.var, rtol=1e-7, atol=tol)
    assert float(moments.total_count(step)) == pytest.approx(len(data) + 1e-12)


@settings(max_examples=60, deadline=None)
@given(x=batches(2, 10), data=st.data())
def test_masked_update_equals_update_on_selected_rows(x, data):
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))))
    m0 = moments.init_moments((3,), xp=np, dtype=np.float64)
    masked = moments.update_moments(m0, x, mask)
    if mask.any():
        oracle = RunningMeanStd(shape=(3,))  # Gymnasium's own, on the selected rows
        oracle.update(x[mask])
        np.testing.assert_allclose(masked.mean, oracle.mean, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(masked.var, oracle.var, rtol=1e-9, atol=1e-12)
    else:  # nothing selected: the state is exactly the old one
        for new, old in zip(masked, m0):
            np.testing.assert_array_equal(new, old)


@pytest.mark.filterwarnings("error")  # left out quietly: no NumPy warning on the bad rows
def test_nonfinite_rows_are_left_out_of_the_statistics():
    x = np.array([[1.0, 2.0], [np.nan, 0.0], [3.0, np.inf], [5.0, -np.inf], [5.0, 6.0]])
    m0 = moments.init_moments((2,), xp=np, dtype=np.float64)
    got = moments.update_moments(m0, x)
    want = RunningMeanStd(shape=(2,))  # Gymnasium's, on the two finite rows
    want.update(x[[0, 4]])
    np.testing.assert_allclose(got.mean, want.mean, rtol=1e-12)
    np.testing.assert_allclose(got.var, want.var, rtol=1e-12)
    assert float(moments.total_count(got)) == want.count == 2 + 1e-4
    single = moments.update_moments_one(m0, np.array([np.nan, 1.0]))
    for new, old in zip(single, m0):
        np.testing.assert_array_equal(new, old)


def test_a_float32_count_on_the_host_stays_exact_past_2_24():
    """A host state whose count words are float32 (not the host's own float64
    count) is merged with the double-word count, one sample or a batch."""
    start = moments.Moments(
        mean=np.zeros(2, np.float32),
        var=np.ones(2, np.float32),
        count=np.float32(2**24),
        count_lo=np.float32(0),
    )
    one = start
    for _ in range(3):
        one = moments.update_moments_one(one, np.ones(2, np.float32))
    assert float(one.count) + float(one.count_lo) == 2**24 + 3
    batch = moments.update_moments(start, np.ones((3, 2), np.float32))
    assert float(batch.count) + float(batch.count_lo) == 2**24 + 3


def test_count_is_exact_past_float32_precision():
    """A float32 count stops at 2^24; the double-word count keeps going."""
    hi = np.float32(2**24)
    lo = np.float32(0)
    plain = np.float32(2**24)
    for _ in range(1000):
        hi, lo, _ = moments.add_count(hi, lo, np.float32(1))
        plain = plain + np.float32(1)
    assert plain == np.float32(2**24)  # why the double word is needed
    assert float(hi) + float(lo) == 2**24 + 1000
    # the total that weighs a merge is the float32 number nearest the new count
    _, _, total = moments.add_count(hi, lo, np.float32(3))
    assert total.dtype == np.float32 and total == np.float32(2**24 + 1003)


def test_count_is_exact_past_2_to_24_under_jax_float32():
    jnp = pytest.importorskip("jax.numpy")
    jax = pytest.importorskip("jax")
    if jax.config.read("jax_enable_x64"):
        pytest.skip("this test is about float32 counts")  # never in CI: x64 is off there
    m = moments.init_moments((1,), xp=jnp, dtype=jnp.float32)
    assert m.count.dtype == jnp.float32
    rows = 2**16
    x = jnp.ones((rows, 1), jnp.float32)
    update = jax.jit(moments.update_moments)
    for _ in range(2**8 + 3):  # 2^24 + 3 * 2^16 samples
        m = update(m, x)
    total = float(m.count) + float(m.count_lo)
    assert total == pytest.approx(2**24 + 3 * 2**16 + 1e-4, abs=1e-3)


@pytest.mark.parametrize("lib", ["numpy", "jax", "torch", "array_api_strict"])
def test_masked_update_agrees_with_gymnasium_on_every_backend(lib):
    """float32 moments of the selected rows, against Gymnasium's float32 RunningMeanStd."""
    backend = make_backend(lib)
    xp = backend.xp
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 4)).astype(np.float32)
    mask = rng.random(16) > 0.3
    m = moments.update_moments(
        moments.init_moments((4,), xp=xp, dtype=xp.float32, device=backend.device),
        backend.to_backend(x),
        backend.to_backend(mask),
    )
    want = RunningMeanStd(shape=(4,), dtype=np.float32)
    want.update(x[mask])
    assert isinstance(m.mean, backend.array_type)
    np.testing.assert_allclose(backend.to_numpy(m.mean), want.mean, rtol=1e-6)
    np.testing.assert_allclose(backend.to_numpy(m.var), want.var, rtol=1e-5)
    assert float(backend.to_numpy(moments.total_count(m))) == pytest.approx(want.count)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_recent_episode_buffer_keeps_gymnasium_order(data):
    """The device buffer holds the same episodes, in the same order, as a deque would.

    The oracle keeps each env's return in plain Python, with Gymnasium's
    NEXT_STEP rule (the step after an end is the reset step: it restarts the
    return at zero and its reward is not counted), and appends finished
    episodes in ascending env order to a ``deque``.
    """
    n, length = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 6))
    state = episodes.init_episodes((n,), xp=np, buffer_length=length)
    oracle: deque = deque(maxlen=length)
    oracle_lengths: deque = deque(maxlen=length)
    running, steps, prev_done = [0.0] * n, [0] * n, [False] * n
    for t in range(data.draw(st.integers(1, 12))):
        reward = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)))
        term = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        trunc = np.zeros(n, dtype=bool)
        state, out = episodes.step_episodes(state, reward, term, trunc, now=float(t))
        for i in range(n):
            if prev_done[i]:
                running[i], steps[i] = 0.0, 0
            else:
                running[i], steps[i] = running[i] + float(reward[i]), steps[i] + 1
            if term[i]:
                oracle.append(running[i])
                oracle_lengths.append(steps[i])
            prev_done[i] = bool(term[i])
        np.testing.assert_array_equal(out.done, term)
        np.testing.assert_allclose(out.returns[term], [running[i] for i in np.flatnonzero(term)])
    size = int(state.recent_size)
    got = state.recent_returns[:size][::-1]  # newest-first buffer, oldest first
    assert size == len(oracle)
    np.testing.assert_allclose(got, np.array(oracle), rtol=1e-12)
    np.testing.assert_array_equal(state.recent_lengths[:size][::-1], np.array(oracle_lengths))


def test_return_accumulator_resets_on_termination_only():
    s = returns.init_returns((2,), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
    s = returns.update_returns(s, np.array([1.0, 1.0]), np.array([False, False]), gamma=0.5)
    s = returns.update_returns(
        s, np.array([1.0, 1.0]), np.array([True, False]), np.array([False, True]), gamma=0.5
    )
    # env 0 terminated: its old return is dropped; env 1 was truncated: kept.
    np.testing.assert_array_equal(s.accumulated, [1.0, 1.5])
