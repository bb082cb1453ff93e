"""The running moments (transforms/moments.py): Chan's merge, the masks, the NaN
policy and the double-word count, across backends.

Oracles are plain NumPy on the selected data (boolean indexing is fine in a test),
or Gymnasium's own RunningMeanStd, never a copy of the transform's formula.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.wrappers.utils import RunningMeanStd
from helpers import make_backend
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from anywrap.transforms import moments

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
    single = moments.update_moments(m0, np.array([np.nan, 1.0]), batched=False)
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
        one = moments.update_moments(one, np.ones(2, np.float32), batched=False)
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
    total = total + lo
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


def oracle(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gymnasium's start (count 1e-4, mean 0, var 1) merged with ``rows``, in float64."""
    n, prior = rows.shape[0], 1e-4
    mean = rows.mean(0)
    tot = prior + n
    new_mean = mean * n / tot
    m2 = 1.0 * prior + rows.var(0) * n + mean**2 * prior * n / tot
    return new_mean, m2 / tot


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("bad", [None, "nan", "inf"])
def test_update_leaves_out_non_finite_rows_on_every_backend(backend, bad):
    rng = np.random.default_rng(3)
    batch = rng.normal(300.0, 2.0, (64, 5)).astype(np.float32)
    keep = np.ones(64, bool)
    if bad is not None:
        batch[7, 2] = np.nan if bad == "nan" else np.inf
        batch[40, 0] = -np.inf
        keep[[7, 40]] = False
    m = moments.init_moments((5,), xp=backend.xp, dtype=backend.xp.float32, device=backend.device)
    out = moments.update_moments(m, backend.to_backend(batch))
    mean, var = oracle(batch[keep].astype(np.float64))
    np.testing.assert_allclose(backend.to_numpy(out.mean), mean, rtol=2e-6)
    np.testing.assert_allclose(backend.to_numpy(out.var), var, rtol=2e-4)
    count = float(backend.to_numpy(moments.total_count(out)))
    assert count == pytest.approx(keep.sum() + 1e-4)


def test_a_float64_count_splits_into_two_float32_words_that_sum_to_it():
    """Counts past 2^24 (where float32 alone rounds) to 2^48: the two words hold them."""
    from anywrap.transforms.moments import split_count

    totals = np.array([0.0, 3.0, 2.0**24 + 1, 2.0**31 - 3, 2.0**40 + 7, 2.0**47 + 12345])
    hi, lo = split_count(totals, np.float32)
    assert hi.dtype == lo.dtype == np.float32
    np.testing.assert_array_equal(hi.astype(np.float64) + lo.astype(np.float64), totals)
    assert hi[3] != totals[3]  # float32 alone would have lost it
    # Gymnasium's counts start at 1e-4: within two float32 mantissas of the total
    hi, lo = split_count(totals + 1e-4, np.float32)
    both = hi.astype(np.float64) + lo.astype(np.float64)
    np.testing.assert_allclose(both, totals + 1e-4, rtol=2.0**-46, atol=1e-12)
