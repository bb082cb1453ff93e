"""The xp layer's backend routes: same meaning as the standard op, and really taken.

A route registered for ``jax.Array`` alone never fires inside ``jax.jit``
(tracers are not its subclasses for ``functools.singledispatch``): each test
below inspects the traced program, so it fails if a route silently falls
back to the generic path.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import moments_with_prior
from hypothesis import given, settings
from hypothesis import strategies as st

from anywrap import xp

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
    want = xp.last_true_indices(m, k)  # NumPy: cumulative sum + binary search
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
    x = jnp.ones((4096, 3))
    assert "128,96" in _traced(lambda a: xp.sum_along(a, axis=0), x).replace(" ", "")


@pytest.mark.parametrize(
    "shape", [(4096, 3), (4096, 1), (4099, 3), (64, 3), (6, 3), (4096, 2, 3), (512, 100)]
)
def test_grouped_row_sum_equals_the_plain_sum(shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    got = np.asarray(jax.jit(lambda a: xp.sum_along(a, axis=0))(jnp.asarray(x)))
    assert got.shape == shape[1:]
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-4)


def test_count_true_on_jax_is_exact_and_int32():
    mask = jnp.asarray(np.random.default_rng(1).random(100_003) < 0.37)
    got = jax.jit(xp.count_true)(mask)
    assert got.dtype == jnp.int32
    assert int(got) == int(np.count_nonzero(np.asarray(mask)))


def test_masked_moments_on_jax_leave_out_rows_with_any_nonfinite_entry():
    from anywrap.transforms import moments

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
    from anywrap.transforms import moments

    x = np.random.default_rng(4).normal(1.0, 2.0, size=(4096, 3)).astype(np.float32)
    mean, var, n = jax.jit(moments.batch_moments)(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(mean), x.astype(np.float64).mean(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(var), x.astype(np.float64).var(0), rtol=1e-4)
    assert int(n) == 4096
    assert "128,96" in _traced(moments.batch_moments, jnp.asarray(x)).replace(" ", "")


@pytest.mark.parametrize("bounds_dtype", ["float32", "float64", "python"])
def test_torch_clip_is_numpys_clip(bounds_dtype):
    """PyTorch's route takes two elementwise kernels where the bounds are tensors of
    the input's dtype, and the Array API's clip otherwise: NumPy's values and dtype
    either way, NaN included."""
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx

    x = np.array([[-3.0], [0.5], [np.nan], [2.0], [-np.inf]], dtype=np.float32)
    low, high = np.array([-1.0]), np.array([1.5])
    if bounds_dtype == "python":
        lo, hi = -1.0, 1.5
    else:
        lo, hi = (torch.tensor(b, dtype=getattr(torch, bounds_dtype)) for b in (low, high))
    got = xp.clip(torch.from_numpy(x), lo, hi)
    if bounds_dtype == "python":
        want = np.clip(x, lo, hi)
    else:
        want = np.clip(x, low.astype(bounds_dtype), high.astype(bounds_dtype))
    assert str(got.dtype) == f"torch.{want.dtype}"
    np.testing.assert_array_equal(got.numpy(), want)
    traced = str(make_fx(lambda a: xp.clip(a, lo, hi))(torch.from_numpy(x)).code)
    routed = "aten.maximum" in traced and "aten.minimum" in traced
    assert routed == (bounds_dtype == "float32"), traced


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.booleans(), min_size=1, max_size=300),
    k=st.integers(min_value=1, max_value=120),
)
def test_last_true_indices_torch_lists_the_last_trues(mask, k):
    """PyTorch's CPU route (one ``nonzero_static``) against the Trues listed by NumPy:
    the filled slots agree, and the others still index the mask safely."""
    torch = pytest.importorskip("torch")
    m = np.array(mask)
    got = xp.last_true_indices(torch.from_numpy(m), k).numpy()
    filled = min(int(m.sum()), k)
    assert got.shape == (k,)
    np.testing.assert_array_equal(got[:filled], np.flatnonzero(m)[::-1][:filled])
    assert np.all((got >= 0) & (got < m.size))


def test_last_true_indices_torch_route_is_one_operator_on_the_cpu():
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx

    mask = torch.arange(4096) % 3 == 0
    traced = str(make_fx(lambda m: xp.last_true_indices(m, 100))(mask).code)
    assert "nonzero_static" in traced and "cumsum" not in traced, traced
