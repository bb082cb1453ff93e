"""The xp layer's routed operations: each NumPy route is the generic formula, to the bit.

The generic form of a route (``route.dispatch(object)``) is what every library
without a kernel of its own runs (array-api-strict, CuPy, ...); NumPy's routes
skip NumPy's Python-level wrappers or, for masked moments, take the selected
rows as Gymnasium does. Each test runs both on the same NumPy values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from anywrap import xp


def generic(route):  # the Array API formula, as a library without a kernel runs it
    return route.dispatch(object)


floats = hnp.arrays(
    np.float32,
    st.tuples(st.integers(1, 40), st.integers(1, 4)),
    elements=st.floats(-1e3, 1e3, width=32),
)


@settings(max_examples=80, deadline=None)
@given(x=floats, data=st.data())
def test_the_numpy_masked_moments_are_the_moments_of_the_selected_rows(x, data):
    """NumPy's masked ``mean_var`` is ``np.mean`` / ``np.var`` of the selected rows
    (Gymnasium's numbers); the generic one, which zeroes the other rows, agrees to
    the float32 rounding of its sums."""
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))))
    if not mask.any():
        mask[0] = True
    mean, var = xp.mean_var(x, mask)
    want_mean, want_var = generic(xp.mean_var)(x[mask])  # the unmasked formula on those rows
    np.testing.assert_array_equal(mean, want_mean)
    np.testing.assert_array_equal(var, want_var)
    g_mean, g_var = generic(xp.mean_var)(x, mask)
    np.testing.assert_allclose(g_mean, mean, rtol=2e-5, atol=2e-3)
    np.testing.assert_allclose(g_var, var, rtol=2e-4, atol=2e-2)


@settings(max_examples=120, deadline=None)
@given(
    x=hnp.arrays(
        st.sampled_from([np.float32, np.float64]),
        st.one_of(
            st.tuples(st.integers(1, 70)),
            st.tuples(st.integers(1, 70), st.integers(1, 5)),
            st.tuples(st.integers(1, 9), st.integers(1, 3), st.integers(1, 3)),
        ),
        elements=st.floats(-1e6, 1e6, width=32),
    )
)
def test_the_numpy_moments_are_np_mean_and_np_var_to_the_bit(x):
    """The NumPy route takes np.var's ufunc calls without its wrappers: the same bits,
    dtypes and types (a NumPy scalar for a 1-D batch) as np.mean and np.var, which
    are what Gymnasium's RunningMeanStd calls."""
    mean, var = xp.mean_var(x)
    want_mean, want_var = np.mean(x, axis=0), np.var(x, axis=0)
    for got, want in ((mean, want_mean), (var, want_var)):
        assert type(got) is type(want) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.bool_])
def test_numpy_moments_of_other_dtypes_are_numpys(dtype):
    x = (np.arange(12).reshape(6, 2) % 3).astype(dtype)
    mean, var = xp.mean_var(x)
    np.testing.assert_array_equal(mean, np.mean(x, axis=0))
    np.testing.assert_array_equal(var, np.var(x, axis=0))
    assert mean.dtype == np.mean(x, axis=0).dtype


def test_numpy_moments_do_not_warn_on_the_rows_they_will_leave_out():
    x = np.array([[1.0, 2.0], [np.inf, 0.0], [-np.inf, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, _ = xp.mean_var(x)
    assert np.isnan(mean[0]) and np.isfinite(mean[1])


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.booleans(), min_size=1, max_size=200), k=st.integers(min_value=1, max_value=80)
)
def test_numpy_last_true_indices_is_the_generic_formula(mask, k):
    m = np.array(mask)
    got, want = xp.last_true_indices(m, k), generic(xp.last_true_indices)(m, k)
    filled = min(int(m.sum()), k)
    assert got.shape == want.shape == (k,)
    np.testing.assert_array_equal(got[:filled], want[:filled])
    np.testing.assert_array_equal(got[:filled], np.flatnonzero(m)[::-1][:filled])
    assert np.all((got >= 0) & (got < m.size))  # unfilled slots still index safely


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.booleans(), min_size=1, max_size=200),
    size=st.integers(min_value=1, max_value=80),
)
def test_numpy_push_true_is_the_generic_push(mask, size):
    """For any count of Trues, fewer or more than the buffer; values cast to the buffer's
    dtype (float64 returns into float32 slots)."""
    m = np.array(mask)
    values = (np.arange(m.size) * 0.1, np.arange(m.size, dtype=np.int64) * 3)
    buffers = (np.arange(size, dtype=np.float32) + 1000, np.arange(size, dtype=np.int64) - 7)
    got = xp.push_true(m, buffers, values, int(m.sum()))
    want = generic(xp.push_true)(m, buffers, values, int(m.sum()))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "bounds", [(-1.0, 1.5), (np.float32(-1.0), np.float32(1.5)), (None, 1.5), (-1.0, None)]
)
def test_numpy_clip_is_the_generic_clip_nan_included(bounds):
    x = np.array([-3.0, 0.5, np.nan, 2.0, -np.inf], dtype=np.float32)
    got, want = xp.clip(x, *bounds), generic(xp.clip)(x, *bounds)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arrays", [(np.ones(3),), (np.ones(3), np.array([1.0, np.nan]))])
def test_numpy_all_finite_is_the_generic_one(arrays):
    assert bool(xp.all_finite(*arrays)) == bool(generic(xp.all_finite)(*arrays))


_ZERO_D = [0.0, -0.0, 1, True, np.nan, np.float32(1.5), np.float64(-2.5), np.int64(3)]
_ZERO_D += [np.bool_(False), np.array(0.1, np.float32), np.array(2.5), np.array(7), np.array(True)]


@pytest.mark.parametrize("condition", [np.True_, np.False_, np.array(True), np.array(False)])
def test_numpy_select_of_0d_values_is_np_where_to_the_bit(condition):
    """One env's select gives a NumPy scalar: np.where's dtype, value and sign."""
    for a in _ZERO_D:
        for b in _ZERO_D:
            got, want = xp.select(condition, a, b), np.where(condition, a, b)
            assert got.shape == () and got.dtype == want.dtype, (a, b)
            np.testing.assert_array_equal(got, want)
            assert np.signbit(got) == np.signbit(want)
    rows = np.array([1.0, 2.0])
    np.testing.assert_array_equal(xp.select(np.True_, 0.0, rows), [0.0, 0.0])  # broadcast


def test_numpy_count_true_is_an_exact_python_int():
    mask = np.random.default_rng(0).random(1000) < 0.3
    got = xp.count_true(mask)
    assert type(got) is int and got == int(generic(xp.count_true)(mask))


def test_push_front_puts_the_newest_first():
    buffer, fresh = np.array([3, 2, 1]), np.array([5, 4, 0])
    np.testing.assert_array_equal(xp.push_front(buffer, fresh, 2), [5, 4, 3])
    np.testing.assert_array_equal(xp.push_front(buffer, fresh, np.int32(0)), buffer)


def test_numpy_cond_runs_one_branch_and_the_generic_one_selects_both():
    ran: list[str] = []

    def branch(name, value):
        def fn(x):
            ran.append(name)
            return x + value

        return fn

    assert xp.cond(np.True_, branch("a", 1.0), branch("b", 2.0), np.float64(1.0)) == 2.0
    assert ran == ["a"]
    out = generic(xp.cond)(np.array(False), branch("a", 1.0), branch("b", 2.0), np.ones(2))
    np.testing.assert_array_equal(out, [3.0, 3.0])
    assert ran == ["a", "a", "b"]  # both computed, then selected: no host read


def test_mean_var_kernels_agree_with_numpy(backend):
    rng = np.random.default_rng(8)
    batch = rng.normal(5.0, 3.0, (257, 4)).astype(np.float32)
    mean, var = xp.mean_var(backend.to_backend(batch))
    wide = batch.astype(np.float64)
    np.testing.assert_allclose(backend.to_numpy(mean), wide.mean(0), rtol=1e-6)
    np.testing.assert_allclose(backend.to_numpy(var), wide.var(0), rtol=1e-5)


@settings(max_examples=80, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 20), elements=st.floats(-1e4, 1e4)))
def test_numpy_round_decimals_is_np_round_and_the_generic_formula_to_the_bit(x):
    """The episode clock's rounding: NumPy's route is ``np.round(x, 6)`` (Gymnasium's)
    and the generic formula, on arrays and on scalars."""
    got = xp.round_decimals(x, 6)
    np.testing.assert_array_equal(got, np.round(x, 6))
    np.testing.assert_array_equal(got, generic(xp.round_decimals)(x, 6))
    assert xp.round_decimals(x[0], 6) == np.round(x[0], 6)
