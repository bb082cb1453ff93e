"""The JAX backend (backends/jax.py): its routes are the generic formulas and really
taken inside ``jax.jit`` (a route registered for ``jax.Array`` alone would fall back on
tracers), the NaN guard sits in a ``lax.cond`` branch, and a stack's step is one
compiled program per wrapper, traced once."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import moments_with_prior
from hypothesis import given, settings
from hypothesis import strategies as st

from anywrap import xp
from anywrap.transforms import moments

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402


def _traced(fn, *args) -> str:
    return str(jax.make_jaxpr(fn)(*args))


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.booleans(), min_size=1, max_size=300),
    k=st.integers(min_value=1, max_value=120),
)
def test_last_true_indices_jax_matches_the_generic_route(mask, k):
    m = np.array(mask)
    want = xp.last_true_indices.dispatch(object)(m, k)  # the generic formula
    got = np.asarray(jax.jit(xp.last_true_indices, static_argnums=1)(jnp.asarray(m), k))
    filled = min(int(m.sum()), k)
    assert got.shape == want.shape == (k,)
    np.testing.assert_array_equal(got[:filled], want[:filled])
    np.testing.assert_array_equal(got[:filled], np.flatnonzero(m)[::-1][:filled])
    assert np.all((got >= 0) & (got < m.size))  # unfilled slots still index safely


def test_jax_routes_are_taken_inside_jit():
    mask = jnp.arange(4096) % 3 == 0
    assert "top_k" in _traced(lambda m: xp.last_true_indices(m, 100), mask)
    assert "cumsum" not in _traced(lambda m: xp.last_true_indices(m, 100), mask)
    # count_true sums float32 (one XLA kernel on the CPU), then casts back
    traced = _traced(xp.count_true, mask)
    assert "float32" in traced and "int32" in traced
    x = jnp.ones((4096, 3))  # the row sums grouped: 32 rows side by side
    assert "128,96" in _traced(lambda a: xp.mean_var(a)[0], x).replace(" ", "")


@pytest.mark.parametrize(
    "shape", [(4096, 3), (4096, 1), (4099, 3), (64, 3), (6, 3), (4096, 2, 3), (512, 100)]
)
def test_grouped_row_sums_give_the_plain_moments(shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    mean, var = (np.asarray(a) for a in jax.jit(xp.mean_var)(jnp.asarray(x)))
    assert mean.shape == var.shape == shape[1:]
    np.testing.assert_allclose(mean, x.astype(np.float64).mean(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(var, x.astype(np.float64).var(axis=0), rtol=1e-4, atol=1e-5)


def test_count_true_on_jax_is_exact_and_int32():
    mask = jnp.asarray(np.random.default_rng(1).random(100_003) < 0.37)
    got = jax.jit(xp.count_true)(mask)
    assert got.dtype == jnp.int32
    assert int(got) == int(np.count_nonzero(np.asarray(mask)))


def test_masked_moments_on_jax_leave_out_rows_with_any_nonfinite_entry():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, size=(4096, 3)).astype(np.float32)
    x[5, 1], x[17, 0], x[99, 2] = np.nan, np.inf, -np.inf  # three bad rows
    keep = rng.random(4096) < 0.8  # and a caller's mask on top
    m0 = moments.init_moments((3,), xp=jnp, dtype=jnp.float32)
    got = jax.jit(moments.update_moments)(m0, jnp.asarray(x), jnp.asarray(keep))
    rows = keep & np.isfinite(x).all(axis=1)
    mean, var, count = moments_with_prior(x[rows])  # float64 closed form
    np.testing.assert_allclose(np.asarray(got.mean), mean, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got.var), var, rtol=1e-5)
    assert float(moments.total_count(got)) == pytest.approx(count)


def test_unmasked_moments_on_jax_take_the_routed_row_sums():
    x = np.random.default_rng(4).normal(1.0, 2.0, size=(4096, 3)).astype(np.float32)
    mean, var, n = jax.jit(moments.batch_moments)(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(mean), x.astype(np.float64).mean(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(var), x.astype(np.float64).var(0), rtol=1e-4)
    assert int(n) == 4096
    assert "128,96" in _traced(moments.batch_moments, jnp.asarray(x)).replace(" ", "")


def test_jax_takes_the_guard_only_in_a_branch():
    m = moments.init_moments((3,), xp=jnp, dtype=jnp.float32)
    jaxpr = str(jax.make_jaxpr(moments.update_moments)(m, jnp.ones((8, 3), jnp.float32)))
    assert "cond[" in jaxpr  # the masked passes sit in lax.cond's second branch
    update = jax.jit(moments.update_moments)
    clean = update(m, jnp.ones((8, 3), jnp.float32))
    dirty = update(m, jnp.ones((8, 3), jnp.float32).at[2, 1].set(jnp.nan))
    assert float(moments.total_count(clean)) == pytest.approx(8.0001)
    assert float(moments.total_count(dirty)) == pytest.approx(7.0001)
    assert bool(jnp.all(jnp.isfinite(dirty.mean)))
