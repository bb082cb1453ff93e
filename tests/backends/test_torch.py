"""The PyTorch backend (backends/torch.py): its routes give NumPy's values and are
taken where they should be, the generic ``cond`` selects without a sync, the eager
update takes the finite rows at once, and a compiled program reads the batch once."""

from __future__ import annotations

import collections
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anywrap import xp
from anywrap.transforms import moments

torch = pytest.importorskip("torch")


def oracle(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gymnasium's start (count 1e-4, mean 0, var 1) merged with ``rows``, in float64."""
    n, prior = rows.shape[0], 1e-4
    mean = rows.mean(0)
    tot = prior + n
    m2 = 1.0 * prior + rows.var(0) * n + mean**2 * prior * n / tot
    return mean * n / tot, m2 / tot


@pytest.mark.parametrize("bounds_dtype", ["float32", "float64", "python"])
def test_torch_clip_is_numpys_clip(bounds_dtype):
    """PyTorch's route takes two elementwise kernels where the bounds are tensors of
    the input's dtype, and the Array API's clip otherwise: NumPy's values and dtype
    either way, NaN included."""
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
    m = np.array(mask)
    got = xp.last_true_indices(torch.from_numpy(m), k).numpy()
    filled = min(int(m.sum()), k)
    assert got.shape == (k,)
    np.testing.assert_array_equal(got[:filled], np.flatnonzero(m)[::-1][:filled])
    assert np.all((got >= 0) & (got < m.size))


def test_last_true_indices_torch_route_is_one_operator_on_the_cpu():
    from torch.fx.experimental.proxy_tensor import make_fx

    mask = torch.arange(4096) % 3 == 0
    traced = str(make_fx(lambda m: xp.last_true_indices(m, 100))(mask).code)
    assert "nonzero_static" in traced and "cumsum" not in traced, traced


def test_the_generic_form_selects_without_a_sync():
    from helpers import torch_no_host_sync

    fast, calls = torch.tensor([1.0, 2.0]), []

    def safe(f, x):
        calls.append(1)
        return x + 10.0

    def keep(f, x):
        return f

    yes, no = torch.tensor(True), torch.tensor(False)
    with torch_no_host_sync():
        kept = xp.cond(yes, keep, safe, fast, torch.zeros(2))
        redone = xp.cond(no, keep, safe, fast, torch.zeros(2))
    assert kept.tolist() == [1.0, 2.0] and redone.tolist() == [10.0, 10.0] and len(calls) == 2


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("bad", [None, "nan", "nan in the origin's rows"])
@pytest.mark.parametrize(("rows", "cols"), [(64, 5), (1000, 16)])
def test_a_compiled_torch_update_leaves_out_the_bad_rows(bad, rows, cols):
    """The shifted sums, plain (64 x 5) and by blocks of 256 rows (1000 x 16: three
    blocks and a remainder), their origin thrown off by an outlying row."""
    from anywrap.xp import switch

    rng = np.random.default_rng(5)
    batch = rng.normal(300.0, 2.0, (rows, cols)).astype(np.float32)
    batch[0] += 40.0  # in the origin's rows: 20 spreads from the mean
    keep = np.ones(rows, bool)
    if bad:
        at = 3 if "origin" in bad else rows - 7
        batch[at, 1] = np.nan
        keep[at] = False
    previous = xp.set_compile(True, after_calls=1)
    start = len(xp.compile_log())
    try:
        update = xp.jit(torch.zeros(1), moments.update_moments)
        m = moments.init_moments((cols,), xp=xp.namespace(torch.zeros(1)), dtype=torch.float32)
        clean = torch.as_tensor(rng.normal(300.0, 2.0, (rows, cols)).astype(np.float32))
        update(m, clean)  # compiles (the call itself runs eagerly)
        out = update(m, torch.as_tensor(batch))  # the compiled program
    finally:
        xp.set_compile(previous, after_calls=switch.AFTER_CALLS)
    records = xp.compile_log()[start:]
    assert [r.compiled for r in records] == [True]
    mean, var = oracle(batch[keep].astype(np.float64))
    np.testing.assert_allclose(out.mean.numpy(), mean, rtol=2e-6)
    np.testing.assert_allclose(out.var.numpy(), var, rtol=2e-4)
    assert float(moments.total_count(out)) == pytest.approx(keep.sum() + 1e-4)


@pytest.mark.parametrize("bad", [None, "nan", "inf", "every row"])
def test_an_eager_torch_update_takes_the_finite_rows_in_one_formula(bad):
    """Eagerly PyTorch cannot branch without a host read: the update takes the finite
    rows' moments at once (no cond, so no second formula computed and dropped), with
    the values of Gymnasium's merge of those rows."""
    rng = np.random.default_rng(4)
    batch = rng.normal(3.0, 2.0, (64, 5)).astype(np.float32)
    keep = np.ones(64, bool)
    if bad == "every row":
        batch[:, 0], keep[:] = np.nan, False
    elif bad:
        batch[9, 2], keep[9] = float(bad), False
    m = moments.init_moments((5,), xp=xp.namespace(torch.zeros(1)), dtype=torch.float32)
    # Learn whether torch branches before the spy is registered (update_moments caches the
    # answer): with the spy in place, cond over tensors would look like it branches.
    assert not xp.branches(torch.zeros(1))
    moments.update_moments(m, torch.as_tensor(batch))
    calls = []
    original = xp.cond.dispatch(torch.Tensor)
    xp.cond.register(torch.Tensor)(lambda *a: calls.append(a) or original(*a))
    try:
        out = moments.update_moments(m, torch.as_tensor(batch))
    finally:
        xp.cond.register(torch.Tensor)(original)
    assert not calls and not xp.branches(torch.zeros(1))
    if not keep.any():  # nothing finite: the start, to the bit
        np.testing.assert_array_equal(out.mean.numpy(), 0.0)
        np.testing.assert_array_equal(out.var.numpy(), 1.0)
        return
    mean, var = oracle(batch[keep].astype(np.float64))
    np.testing.assert_allclose(out.mean.numpy(), mean, rtol=2e-6)
    np.testing.assert_allclose(out.var.numpy(), var, rtol=2e-5)
    assert float(moments.total_count(out)) == pytest.approx(keep.sum() + 1e-4)


@pytest.mark.parametrize(
    "shape", [(300,), (300, 1), (300, 2), (300, 3), (300, 8), (300, 9), (300, 2, 2)]
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize(("masked", "finite"), [(True, False), (False, True), (True, True)])
def test_torch_row_moments_are_those_of_the_selected_rows(shape, dtype, masked, finite):
    """PyTorch's row_moments (narrow rows: a product with ones(k, 1) sums a row's NaN; the
    others: a row mask) against NumPy's moments of the rows selected, in float64: the
    rows with a NaN or an infinity anywhere left out with ``finite``, and the count (in a
    Moments count's dtype, which a merge takes with no cast)."""
    rng = np.random.default_rng(7)
    batch = rng.normal(5.0, 3.0, shape).astype(dtype)
    flat = batch.reshape(shape[0], -1)
    keep = rng.random(shape[0]) < 0.7 if masked else np.ones(shape[0], bool)
    for row, bad in ((3, np.nan), (40, np.inf), (41, -np.inf)):
        flat[row, -1] = bad
        keep[row] &= not finite
    mask = torch.from_numpy(keep.copy()) if masked else None
    if masked and finite:
        keep[np.random.default_rng(1).integers(0, shape[0], 5)] = False  # masked, finite
        mask = torch.from_numpy(keep | ~np.isfinite(flat).all(1))
    mean, var, count = xp.row_moments(torch.from_numpy(batch), mask, finite)
    want = batch[keep].astype(np.float64)
    assert count.dtype == torch.float64 and int(count) == keep.sum()  # a Moments count's
    assert mean.dtype == var.dtype == getattr(torch, dtype)
    rtol = 2e-3 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(mean.double().numpy(), want.mean(0), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(var.double().numpy(), want.var(0), rtol=rtol, atol=rtol)
    none = xp.row_moments(torch.from_numpy(batch), torch.zeros(shape[0], dtype=torch.bool), finite)
    assert int(none[2]) == 0 and not none[0].abs().sum() and not none[1].abs().sum()


@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_shifted_moments_keep_float32_precision_far_from_zero(offset):
    """One read of the batch (sums of deviations from the first rows' mean) against
    NumPy's two passes in float64: far from zero, the plain sum of squares minus the
    squared sum would lose every digit of a spread of 1 in float32."""
    rng = np.random.default_rng(9)
    batch = rng.normal(offset, 1.0, (1000, 3)).astype(np.float32)
    batch[0] += 25.0  # an outlier among the origin's rows
    batch[:, 2] = offset + 0.5  # a constant column: variance 0, not below
    from anywrap.backends.torch import _shifted_mean_var, _sum0

    mean, var = (a.numpy() for a in _shifted_mean_var(torch.from_numpy(batch), _sum0))
    wide = batch.astype(np.float64)
    np.testing.assert_allclose(mean, wide.mean(0), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(var[:2], wide.var(0)[:2], rtol=1e-4)
    assert var[2] == 0.0


def test_a_compiled_torch_program_reads_the_batch_once():
    """In a program, the torch route takes the shifted sums (one fused pass), by
    blocks of rows for a wide batch of two blocks or more; eagerly, Welford's."""

    def sums(rows, cols):
        graphs = []

        def backend(gm, example_inputs):
            targets = [getattr(n.target, "__name__", n.target) for n in gm.graph.nodes]
            graphs.append([t for t in targets if isinstance(t, str)])
            return gm.forward

        def fn(x):
            return list(xp.mean_var(x))

        fn(torch.ones(rows, cols))  # as a wrapper's eager calls do: the dispatch is known
        torch.compile(fn, backend=backend, fullgraph=True, dynamic=False)(torch.ones(rows, cols))
        torch.compiler.reset()
        (graph,) = graphs
        assert "var_mean" not in graph
        return graph.count("sum")  # torch.sum and Tensor.sum alike

    plain = sums(4096, 3)  # the origin's rows, the deviations, their squares
    assert plain == 3
    assert sums(511, 16) == plain
    assert sums(512, 16) == plain + 2  # each of the two sums by blocks, then of blocks
    assert not torch.compiler.is_compiling()
    mean, var = xp.mean_var(torch.arange(6.0).reshape(3, 2))
    assert mean.tolist() == [2.0, 3.0] and var.tolist() == pytest.approx([8 / 3, 8 / 3])


def test_constant_is_a_kept_0d_tensor_with_the_numbers_of_a_python_number():
    """xp.constant: PyTorch wraps every Python number into a tensor of its own (three to
    four ATen calls); the route keeps one 0-d tensor per value, dtype and device, with
    the same results, and gives the number back where a 0-d tensor would round
    differently (float16 computes in float32) or truncate (a float beside ints)."""
    x = torch.linspace(-3.0, 3.0, 101, dtype=torch.float32)
    xp.namespace(x)  # loads the backend, as every transform's first line does
    c = xp.constant(x, 0.99)
    assert c.shape == () and c.dtype == torch.float32 and c is xp.constant(x, 0.99)
    assert torch.equal(x * c, x * 0.99) and torch.equal(x + xp.constant(x, 1e-8), x + 1e-8)
    d = x.double()
    assert torch.equal(d * xp.constant(d, 0.99), d * 0.99)
    assert xp.constant(x.half(), 0.99) == 0.99 and type(xp.constant(x.half(), 0.99)) is float
    assert xp.constant(torch.zeros(3, dtype=torch.int32), 0.5) == 0.5
    assert xp.constant(torch.zeros(3, dtype=torch.int32), 1).dtype == torch.int32
    with torch.inference_mode():  # made in inference mode, still usable by autograd later
        xp.constant(torch.zeros(2, dtype=torch.float64), 0.125)
    w = torch.ones(2, dtype=torch.float64, requires_grad=True)
    (w * xp.constant(w, 0.125)).sum().backward()
    assert torch.equal(w.grad, torch.full((2,), 0.125, dtype=torch.float64))


@settings(max_examples=60, deadline=None)
@given(
    mask=st.lists(st.booleans(), min_size=1, max_size=200),
    size=st.integers(min_value=1, max_value=80),
)
def test_push_true_torch_is_the_generic_push(mask, size):
    """PyTorch's routes (eagerly one topk over the candidates; traced, a running count
    and a binary search) push what last_true_indices, take and push_front push, for any
    count of Trues, fewer or more than the buffer."""
    m = np.array(mask)
    values = (np.arange(m.size, dtype=np.float64), np.arange(m.size, dtype=np.int64) * 3)
    buffers = (np.arange(size, dtype=np.float64) + 1000, np.arange(size, dtype=np.int64) - 7)
    want = xp.push_true.dispatch(object)(m, buffers, values, int(m.sum()))
    t = torch.from_numpy
    for traced in (False, True):
        with mock.patch.object(torch.compiler, "is_compiling", return_value=traced):
            got = xp.push_true(t(m), tuple(map(t, buffers)), tuple(map(t, values)), t(m).sum())
        for g, w in zip(got, want):
            assert g.dtype == t(w).dtype
            np.testing.assert_array_equal(g.numpy(), w)


@pytest.mark.parametrize("size", [2, 4, 7])
def test_push_true_torch_traces_whole(size):
    """The traced route compiles as one graph and pushes what Gymnasium's deque holds:
    each finished env's value put in front, in ascending env order, the oldest dropped."""
    m = torch.tensor([True, False, True, True, False, True])
    buffers = (torch.arange(size, dtype=torch.float64), torch.arange(size) - 7)
    values = (torch.arange(6, dtype=torch.float64) * 10, torch.arange(6) * 3)
    compiled = torch.compile(xp.push_true.dispatch(torch.Tensor), fullgraph=True, backend="eager")
    got = compiled(m, buffers, values, m.sum())
    for g, b, v in zip(got, buffers, values):
        queue = collections.deque(b.tolist(), maxlen=size)  # newest on the left
        for i in np.flatnonzero(m.numpy()):
            queue.appendleft(v[i].item())
        assert g.dtype == b.dtype and g.tolist() == list(queue)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_round_decimals_is_numpys_round(dtype):
    """PyTorch's route (one kernel) gives np.round's bits: half to even at six places."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(0, 1000, 10_000), np.arange(-8, 8) * 5e-7 + 2.5e-7])
    x = x.astype(dtype)
    got = xp.round_decimals(torch.from_numpy(x), 6)
    assert got.dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(got.numpy(), np.round(x, 6))
    np.testing.assert_array_equal(xp.round_decimals(x, 6), np.round(x, 6))


def test_select_torch_is_where():
    cond = torch.tensor([True, False, True])
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    zero = xp.constant(x, 0.0)
    np.testing.assert_array_equal(xp.select(cond, zero, x).numpy(), [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(xp.select(cond, x, 0.5).numpy(), [1.0, 0.5, 3.0])


def test_an_empty_masked_batch_leaves_torch_moments_as_they_were():
    """The array-count merge weighs an empty batch by exactly 0: no select keeps the
    statistics, yet they come back to the bit."""
    m = moments.init_moments((3,), xp=torch, dtype=torch.float32)
    m = moments.update_moments(m, torch.rand(17, 3) * 5 + 2)
    none = torch.zeros(17, dtype=torch.bool)
    out = moments.update_moments(m, torch.rand(17, 3), none)
    for a, b in zip(out, m):
        assert torch.equal(a, b)


def test_torch_row_count_takes_the_devices_widest_float(monkeypatch):
    """The row count is made in the dtype a Moments count has on the device (float32 where
    float64 is absent, as on MPS), read from ``wide_float``, not from a list of devices."""
    from anywrap.backends import torch as backend

    monkeypatch.setattr(backend, "_wide", {})
    monkeypatch.setattr(xp, "wide_float", lambda ns, device=None: torch.float32)
    batch = torch.tensor([[1.0, 2.0], [float("nan"), 0.0], [3.0, 6.0]])
    mean, var, count = xp.row_moments(batch, None, True)
    assert count.dtype == torch.float32 and float(count) == 2.0
    np.testing.assert_allclose(mean.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(var.numpy(), [1.0, 4.0])
