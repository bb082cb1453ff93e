"""Statistics merged across 2 PyTorch processes (gloo) equal one process seeing the whole batch."""

from __future__ import annotations

import os
import socket

import numpy as np
import pytest
from helpers import moments_with_prior

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from anywrap.distributed import jax_psum, torch_allreduce_sum  # noqa: E402
from anywrap.transforms import moments  # noqa: E402
from anywrap.transforms import normalize_reward as returns  # noqa: E402

WORLD = 2


def _batches(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for t in range(4):
        x = rng.normal(3.0 * t, 1.0 + t, size=(10, 3))
        x[rng.integers(10)] = np.nan  # a bad row: left out on whichever rank holds it
        out.append((x, rng.random(10) < 0.7))
    return out


def _worker(rank: int, port: int, failures: object) -> None:
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    try:
        reduce = torch_allreduce_sum()
        m = moments.init_moments((3,), xp=torch, dtype=torch.float64)
        ref = moments.init_moments((3,), xp=torch, dtype=torch.float64)
        r = returns.init_returns((5,), xp=torch, acc_dtype=torch.float32, stats_dtype=torch.float64)
        r_ref = returns.init_returns(
            (10,), xp=torch, acc_dtype=torch.float32, stats_dtype=torch.float64
        )
        for x, mask in _batches():
            xt, mt = torch.from_numpy(x), torch.from_numpy(mask)
            half = slice(5 * rank, 5 * rank + 5)
            before = xt[half].clone()
            m = moments.update_moments(m, xt[half], mt[half], reduce=reduce)
            assert torch.equal(torch.nan_to_num(before), torch.nan_to_num(xt[half]))  # input intact
            ref = moments.update_moments(ref, xt, mt)
            rew, term = xt[:, 0].float(), mt
            r = returns.update_returns(r, rew[half], term[half], gamma=0.9, reduce=reduce)
            r_ref = returns.update_returns(r_ref, rew, term, gamma=0.9)
        for got, want in zip(m, ref):  # float64 samples: equal to rounding
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
        # and both are the moments of every selected finite row (float64 closed form)
        rows = np.concatenate([x[mask & np.isfinite(x).all(axis=1)] for x, mask in _batches()])
        mean, var, count = moments_with_prior(rows)
        np.testing.assert_allclose(m.mean.numpy(), mean, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(m.var.numpy(), var, rtol=1e-12, atol=1e-12)
        assert float(moments.total_count(m)) == count
        for got, want in zip(r.rms, r_ref.rms):  # float32 returns: summed in another order
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-9)
    except BaseException as e:
        failures.put(f"rank {rank}: {type(e).__name__}: {e}")  # type: ignore[attr-defined]
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_torch_allreduce_moments_equal_one_process_on_the_whole_batch():
    ctx = mp.get_context("spawn")
    failures = ctx.SimpleQueue()
    mp.start_processes(
        _worker, args=(_free_port(), failures), nprocs=WORLD, join=True, start_method="spawn"
    )
    errors = []
    while not failures.empty():
        errors.append(failures.get())
    assert not errors, errors


def test_torch_allreduce_requires_an_initialised_group():
    reduce = torch_allreduce_sum()
    with pytest.raises(RuntimeError, match="init_process_group"):
        reduce(torch.ones(2))


def test_jax_psum_hook_gives_global_moments():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    x = np.random.default_rng(1).normal(size=(4, 6, 2)).astype(np.float32)
    m0 = moments.init_moments((2,), xp=jnp, dtype=jnp.float32)
    per = jax.vmap(lambda s: moments.update_moments(m0, s, reduce=jax_psum("i")), axis_name="i")
    got = per(jnp.asarray(x))
    mean, var, _ = moments_with_prior(x.reshape(24, 2))  # every shard: the whole batch's
    np.testing.assert_allclose(np.asarray(got.mean), np.broadcast_to(mean, (4, 2)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got.var), np.broadcast_to(var, (4, 2)), rtol=1e-5)
