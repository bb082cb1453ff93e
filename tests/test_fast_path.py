"""The moments' NaN guard runs only where needed (``anywrap.xp.fast_path``), and the
result is the same either way: the moments of the finite rows, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from anywrap import xp as axp
from anywrap.transforms import moments


def oracle(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gymnasium's start (count 1e-4, mean 0, var 1) merged with ``rows``, in float64."""
    n, prior = rows.shape[0], 1e-4
    mean = rows.mean(0)
    tot = prior + n
    new_mean = mean * n / tot
    m2 = 1.0 * prior + rows.var(0) * n + mean**2 * prior * n / tot
    return new_mean, m2 / tot


# The generic form computes the unguarded moments too, which array-api-strict
# (NumPy underneath) warns about when a row holds an infinity: expected here.
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


def test_jax_takes_the_guard_only_in_a_branch():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    m = moments.init_moments((3,), xp=jnp, dtype=jnp.float32)
    jaxpr = str(jax.make_jaxpr(moments.update_moments)(m, jnp.ones((8, 3), jnp.float32)))
    assert "cond[" in jaxpr  # the masked passes sit in lax.cond's second branch
    update = jax.jit(moments.update_moments)
    clean = update(m, jnp.ones((8, 3), jnp.float32))
    dirty = update(m, jnp.ones((8, 3), jnp.float32).at[2, 1].set(jnp.nan))
    assert float(moments.total_count(clean)) == pytest.approx(8.0001)
    assert float(moments.total_count(dirty)) == pytest.approx(7.0001)
    assert bool(jnp.all(jnp.isfinite(dirty.mean)))


def test_the_generic_form_selects_without_a_sync():
    torch = pytest.importorskip("torch")
    from helpers import torch_no_host_sync

    fast, calls = torch.tensor([1.0, 2.0]), []

    def safe(x):
        calls.append(1)
        return x + 10.0

    with torch_no_host_sync():
        kept = axp.fast_path(torch.tensor(True), fast, safe, torch.zeros(2))
        redone = axp.fast_path(torch.tensor(False), fast, safe, torch.zeros(2))
    assert kept.tolist() == [1.0, 2.0] and redone.tolist() == [10.0, 10.0] and len(calls) == 2


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("bad", [None, "nan", "nan in the origin's rows"])
@pytest.mark.parametrize(("rows", "cols"), [(64, 5), (1000, 16)])
def test_a_compiled_torch_update_leaves_out_the_bad_rows(bad, rows, cols):
    """The shifted sums, plain (64 x 5) and by blocks of 256 rows (1000 x 16: three
    blocks and a remainder), their origin thrown off by an outlying row."""
    torch = pytest.importorskip("torch")
    from anywrap.xp import switch

    rng = np.random.default_rng(5)
    batch = rng.normal(300.0, 2.0, (rows, cols)).astype(np.float32)
    batch[0] += 40.0  # in the origin's rows: 20 spreads from the mean
    keep = np.ones(rows, bool)
    if bad:
        at = 3 if "origin" in bad else rows - 7
        batch[at, 1] = np.nan
        keep[at] = False
    previous = axp.set_compile(True, after_calls=1)
    start = len(axp.compile_log())
    try:
        update = axp.jit(torch.zeros(1), moments.update_moments)
        m = moments.init_moments((cols,), xp=axp.namespace(torch.zeros(1)), dtype=torch.float32)
        clean = torch.as_tensor(rng.normal(300.0, 2.0, (rows, cols)).astype(np.float32))
        update(m, clean)  # compiles (the call itself runs eagerly)
        out = update(m, torch.as_tensor(batch))  # the compiled program
    finally:
        axp.set_compile(previous, after_calls=switch.AFTER_CALLS)
    records = axp.compile_log()[start:]
    assert [r.compiled for r in records] == [True]
    mean, var = oracle(batch[keep].astype(np.float64))
    np.testing.assert_allclose(out.mean.numpy(), mean, rtol=2e-6)
    np.testing.assert_allclose(out.var.numpy(), var, rtol=2e-4)
    assert float(moments.total_count(out)) == pytest.approx(keep.sum() + 1e-4)


def test_the_torch_trace_branches_on_the_guard():
    torch = pytest.importorskip("torch")
    from anywrap.xp import _torch_compile

    m = moments.init_moments((3,), xp=axp.namespace(torch.zeros(1)), dtype=torch.float32)
    x = torch.ones(8, 3)

    def ops_of(branches):
        flat = [*m, x]

        def fn(*t):
            return list(moments.update_moments(moments.Moments(*t[:4]), t[4]))

        return str(_torch_compile._trace(fn, flat, branches=branches).graph)

    assert "higher_order.cond" in ops_of(True)
    assert "higher_order.cond" not in ops_of(False)  # eager form: both and a select
    assert not _torch_compile.tracing()


def test_mean_var_kernels_agree_with_numpy(backend):
    rng = np.random.default_rng(8)
    batch = rng.normal(5.0, 3.0, (257, 4)).astype(np.float32)
    mean, var = axp.mean_var(backend.to_backend(batch))
    wide = batch.astype(np.float64)
    np.testing.assert_allclose(backend.to_numpy(mean), wide.mean(0), rtol=1e-6)
    np.testing.assert_allclose(backend.to_numpy(var), wide.var(0), rtol=1e-5)


@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_shifted_moments_keep_float32_precision_far_from_zero(backend, offset):
    """One read of the batch (sums of deviations from the first rows' mean) against
    NumPy's two passes in float64: far from zero, the plain sum of squares minus the
    squared sum would lose every digit of a spread of 1 in float32."""
    rng = np.random.default_rng(9)
    batch = rng.normal(offset, 1.0, (1000, 3)).astype(np.float32)
    batch[0] += 25.0  # an outlier among the origin's rows
    batch[:, 2] = offset + 0.5  # a constant column: variance 0, not below
    mean, var = axp.shifted_mean_var(backend.to_backend(batch))
    wide = batch.astype(np.float64)
    np.testing.assert_allclose(backend.to_numpy(mean), wide.mean(0), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(backend.to_numpy(var)[:2], wide.var(0)[:2], rtol=1e-4)
    assert backend.to_numpy(var)[2] == 0.0


def test_a_compiled_torch_program_reads_the_batch_once():
    """In a program, the torch route takes the shifted sums (one fused pass), by
    blocks of rows for a wide batch of two blocks or more; eagerly, Welford's."""
    torch = pytest.importorskip("torch")
    from anywrap.xp import _torch_compile

    def sums(rows, cols):
        def fn(x):
            return list(axp.mean_var(x))

        graph = str(_torch_compile._trace(fn, [torch.ones(rows, cols)], False).graph)
        assert "var_mean" not in graph
        return graph.count("aten.sum")

    plain = sums(4096, 3)  # the origin's rows, the deviations, their squares
    assert plain == 3
    assert sums(511, 16) == plain
    assert sums(512, 16) == plain + 2  # each of the two sums by blocks, then of blocks
    assert not _torch_compile.in_program()
    mean, var = axp.mean_var(torch.arange(6.0).reshape(3, 2))
    assert mean.tolist() == [2.0, 3.0] and var.tolist() == pytest.approx([8 / 3, 8 / 3])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_host_batch_merge_is_the_generic_merge_to_the_bit(dtype):
    """The vector shells' host short cut against the generic merge it stands for,
    on a float32 batch (the batch moments stay float32 until they meet the stats)."""
    rng = np.random.default_rng(11)
    m = moments.init_moments((4,), xp=np, dtype=dtype)
    for _ in range(5):  # a few merges, so that counts and variances are not round
        batch = rng.normal(3.0, 2.0, (16, 4)).astype(np.float32)
        mean, var, n = moments.batch_moments(batch)
        want = moments.merge_moments(m, mean, var, n)
        got = moments._merge_batch_on_host(m, mean, var, n)
        for a, b in zip(got, want):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
        m = got


@pytest.mark.parametrize("same_step", [False, True])
@pytest.mark.parametrize("buffer_length", [0, 3, 100])
def test_the_host_episode_step_is_the_generic_one_to_the_bit(same_step, buffer_length):
    """A vector env's episode step on NumPy (a host short cut) against the generic
    path over array-api-strict, on the same rewards, ends and clock, every field."""
    xps = pytest.importorskip("array_api_strict")
    from anywrap.transforms import episodes as ep

    rng = np.random.default_rng(4)
    n = 7

    def init(xp):
        return ep.init_episodes((n,), xp=xp, buffer_length=buffer_length, now=1.5)

    host, strict = init(np), init(xps)
    for t in range(60):
        reward = rng.normal(size=n)
        term, trunc = rng.random(n) < 0.15, rng.random(n) < 0.05
        now = 2.0 + 0.37 * t
        host, out_h = ep.step_episodes(host, reward, term, trunc, now, same_step=same_step)
        strict, out_s = ep.step_episodes(
            strict,
            xps.asarray(reward),
            xps.asarray(term),
            xps.asarray(trunc),
            now,
            same_step=same_step,
        )
        for a, b in zip((*host, *out_h), (*strict, *out_s)):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    assert float(ep.episode_total(host)) > 10  # episodes did end, and were counted


@pytest.mark.parametrize("buffer_length", [0, 3, 100])
def test_a_host_run_catches_up_to_the_generic_step_to_the_bit(buffer_length):
    """A single env's episode as Python numbers (HostRun), read back at random
    moments, against the generic path over array-api-strict on the same rewards,
    ends and clock: every field of the state, and every report."""
    xps = pytest.importorskip("array_api_strict")
    from anywrap.transforms import episodes as ep

    rng = np.random.default_rng(6)
    host = ep.init_episodes((), xp=np, buffer_length=buffer_length, now=1.5)
    strict = ep.init_episodes((), xp=xps, buffer_length=buffer_length, now=1.5)
    run = ep.HostRun(host)
    ends = 0
    for t in range(400):
        reward = [1, 0.25, np.float32(-0.7), np.float64(rng.normal())][t % 4]
        done = bool(rng.random() < 0.2)
        now = 2.0 + 0.37 * t
        report = run.step(reward, done, now)
        strict, out = ep.step_episodes(
            strict,
            xps.asarray(float(reward), dtype=xps.float64),
            xps.asarray(done),
            xps.asarray(False),
            now,
            same_step=True,
        )
        ends += done
        if done:
            assert report == (float(out.returns), int(out.lengths), float(out.times))
            assert [type(v) for v in report] == [float, int, float]  # Gymnasium's types
        else:
            assert report is None
        if rng.random() < 0.05 or t == 399:  # a read: the state catches up
            host = run.caught_up(host)
            assert not run.ended
            for a, b in zip(host, strict, strict=True):
                a, b = np.asarray(a), np.asarray(b)
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a, b)
    assert ends > 60 and float(ep.episode_total(host)) == ends


@pytest.mark.parametrize("flag", [bool, np.bool_])
def test_the_single_wrapper_reads_its_host_run_back_everywhere(flag):
    """The state, the queues, the count and a checkpoint see every episode that
    ended on the Python-number path, and a load replaces the run."""
    import gymnasium as gym

    import anywrap

    class Ends(gym.Env):
        observation_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        action_space = gym.spaces.Discrete(2)

        def __init__(self):
            self.t = 0

        def reset(self, *, seed=None, options=None):
            return np.zeros(1, np.float32), {}

        def step(self, action):
            self.t += 1
            return np.zeros(1, np.float32), float(self.t), flag(self.t % 3 == 0), flag(False), {}

    env = anywrap.RecordEpisodeStatistics(Ends(), buffer_length=4)
    ref = gym.wrappers.RecordEpisodeStatistics(Ends(), buffer_length=4)
    env.reset(seed=0)
    ref.reset(seed=0)
    for _ in range(3 * 250):  # past the list's bound (2 x 4 + 64 episodes)
        got, want = env.step(0)[4], ref.step(0)[4]
        if "episode" in want:
            assert got["episode"]["r"] == want["episode"]["r"]
            assert got["episode"]["l"] == want["episode"]["l"]
            env.reset()
            ref.reset()
    assert env._run is not None  # the episodes went the Python-number way
    assert env.episode_count == ref.episode_count == 250
    assert list(env.return_queue) == list(ref.return_queue)
    assert list(env.length_queue) == list(ref.length_queue)
    saved = env.state_dict()
    env.step(0)
    env.load_state_dict(saved)  # the run goes; the loaded state is the truth
    assert env.episode_count == 250 and int(env.episode_lengths) == 0


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("update", [True, False])
def test_the_host_reward_step_is_the_generic_one_to_the_bit(update):
    """A single env's NormalizeReward step on Python floats against the generic
    path over array-api-strict, on the same rewards (Python and NumPy floats,
    NaN and infinities among them) and ends: every field, and the scaled reward."""
    xps = pytest.importorskip("array_api_strict")
    from anywrap.transforms import returns

    rng = np.random.default_rng(8)
    host = returns.init_returns((), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
    strict = returns.init_returns((), xp=xps, acc_dtype=xps.float64, stats_dtype=xps.float64)
    kinds = [float, np.float64]
    finite = 0
    for t in range(300):
        value = [rng.normal(-3.0, 2.0), 1e6 * rng.random(), np.nan, np.inf, -np.inf][
            0 if t % 23 else (t // 23) % 5
        ]
        reward = kinds[t % 2](value)
        finite += bool(np.isfinite(value))
        term = [bool, np.bool_][t % 3 % 2](rng.random() < 0.1)
        out = returns.normalize_reward_on_host(
            host, reward, term, gamma=0.97, epsilon=1e-8, update=update
        )
        assert out is not None
        host, scaled = out
        strict, want = returns.normalize_reward(
            strict,
            xps.asarray(float(reward), dtype=xps.float64),
            xps.asarray(bool(term)),
            None,
            gamma=0.97,
            epsilon=1e-8,
            update=update,
        )
        assert type(scaled) is np.float64
        np.testing.assert_array_equal(scaled, np.asarray(want))
        for a, b in zip(
            (host.accumulated, *host.rms, host.prev_done),
            (strict.accumulated, *strict.rms, strict.prev_done),
        ):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    # the non-finite rewards were left out of the statistics, the others all counted
    assert finite < 300
    assert float(moments.total_count(host.rms)) == pytest.approx(finite + 1e-4 if update else 1e-4)


def test_the_host_reward_step_declines_what_it_does_not_take():
    """A float32 state, a vector state or a device state goes the generic way."""
    from anywrap.transforms import returns

    def state(shape, dtype):
        return returns.init_returns(shape, xp=np, acc_dtype=dtype, stats_dtype=dtype)

    step = returns.normalize_reward_on_host
    assert step(state((), np.float32), 1.0, False, gamma=0.9, epsilon=1e-8) is None
    assert step(state((3,), np.float64), 1.0, False, gamma=0.9, epsilon=1e-8) is None
    torch = pytest.importorskip("torch")
    on_torch = returns.init_returns(
        (), xp=torch, acc_dtype=torch.float64, stats_dtype=torch.float64
    )
    assert step(on_torch, 1.0, False, gamma=0.9, epsilon=1e-8) is None


def test_the_single_reward_wrapper_steps_on_host_numbers_beside_gymnasium():
    """anywrap.NormalizeReward takes the Python-number step for Python and NumPy
    float rewards (its compiled step is not called), the generic one for others,
    and either way gives Gymnasium's numbers to the bit, with statistics shared
    by an evaluation wrapper and frozen by ``update_running_mean``."""
    import gymnasium as gym

    import anywrap

    class Rewards(gym.Env):
        observation_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        action_space = gym.spaces.Discrete(2)

        def __init__(self):
            self.t = 0
            self.rng = np.random.default_rng(2)
            self.kinds = []

        def reset(self, *, seed=None, options=None):
            return np.zeros(1, np.float32), {}

        def step(self, action):
            self.t += 1
            value = self.rng.normal(1.0, 3.0)
            reward = self.last = [float, np.float64, np.float32, int][self.t % 7 // 2](value)
            self.kinds.append(type(reward))
            return np.zeros(1, np.float32), reward, self.t % 9 == 0, False, {}

    train, ref = anywrap.NormalizeReward(Rewards()), gym.wrappers.NormalizeReward(Rewards())
    evals, ref_eval = anywrap.NormalizeReward(Rewards()), gym.wrappers.NormalizeReward(Rewards())
    evals.return_rms, ref_eval.return_rms = train.return_rms, ref.return_rms
    evals.update_running_mean = ref_eval.update_running_mean = False
    generic = []
    for env in (train, evals):
        for update, fn in env._step.items():
            env._step[update] = lambda *a, _fn=fn, **k: generic.append(1) or _fn(*a, **k)
    for env in (train, ref, evals, ref_eval):
        env.reset(seed=0)
    for t in range(200):
        for ours, theirs in ((train, ref), (evals, ref_eval)):
            got, want = ours.step(0)[1], theirs.step(0)[1]
            if type(ours.unwrapped.last) is np.float32:  # anywrap keeps a float's dtype
                assert type(got) is np.float32 and got == np.float32(want)
            else:
                assert type(got) is type(want) is np.float64 and got == want
        if t == 100:  # the switch, both ways
            train.update_running_mean = ref.update_running_mean = False
        if t == 150:
            train.update_running_mean = ref.update_running_mean = True
    assert float(train.return_rms.var) == float(ref.return_rms.var)
    assert float(train.return_rms.count) == ref.return_rms.count
    assert float(evals.discounted_reward[0]) == float(ref_eval.discounted_reward[0])
    assert float(evals.return_rms.mean) == float(ref.return_rms.mean)  # one shared object
    # the np.float32 and int rewards took the generic step, and only they
    kinds = train.unwrapped.kinds + evals.unwrapped.kinds
    assert len(generic) == sum(k in (np.float32, int) for k in kinds) > 100


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_the_host_reward_step_takes_a_variance_set_below_zero_as_numpy_does():
    """A variance a user set below zero (or to NaN) gives NumPy's NaN, not an error."""
    from anywrap.transforms import returns

    for bad in (-1.0, np.nan):
        state = returns.init_returns((), xp=np, acc_dtype=np.float64, stats_dtype=np.float64)
        state = state._replace(rms=state.rms._replace(var=np.float64(bad)))
        kw = {"gamma": 0.9, "epsilon": 1e-8, "update": False}
        out = returns.normalize_reward_on_host(state, 1.0, False, **kw)
        assert out is not None
        _, want = returns.normalize_reward(state, np.float64(1.0), np.asarray(False), None, **kw)
        assert np.isnan(out[1]) and np.isnan(want)
