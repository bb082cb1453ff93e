"""A functional stack across 2 ``jax.distributed`` processes, 2 CPU devices each.

Two processes on the loopback address run ``_multiprocess_script.py`` (the CleanRL
stack split over their 4 devices with ``shard_map``); this process runs the same stack
unsharded, in one process, on one device. Checked:

* the statistics of the split run equal the unsharded run's, in both processes;
* the checkpoint the processes wrote loads here with the statistics they held;
* a checkpoint written here loads there (each statistic on its devices) and the
  stack continues there as it does here.

Bounded: each process gets ``TIMEOUT`` seconds, then both are killed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
pytest.importorskip("safetensors")
from functional_envs import cleanrl_stack, pendulum  # noqa: E402

import anywrap  # noqa: E402
from anywrap import functional as F  # noqa: E402

N, T, EP, BUF = 8, 12, 5, 3  # 2 envs per device; every env ends 2 episodes
TIMEOUT = 150
TESTS = Path(__file__).resolve().parents[1]


def make():
    return cleanrl_stack(pendulum(N, max_steps=EP), buffer_length=BUF)


def statistics(state):
    """As the script reads them (by hand, from the state)."""
    obs = F.find_state(state, F.NormalizeObservationState).obs_stats
    rms = F.find_state(state, F.NormalizeRewardState).returns.rms
    ep = F.find_state(state, F.EpisodeStatisticsState).episodes
    out = {f"{p}.{f}": getattr(m, f) for p, m in (("obs", obs), ("rms", rms)) for f in m._fields}
    for f in ("recent_returns", "recent_lengths", "recent_size", "episode_count"):
        out[f"ep.{f}"] = getattr(ep, f)
    out["ep.episode_count_lo"] = ep.episode_count_lo
    return {k: np.asarray(v) for k, v in out.items()}


def close(got, want, what):
    assert sorted(got) == sorted(want), what
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=2e-6, err_msg=f"{what}: {k}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_processes(folder: Path) -> list[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in ("http_proxy", "https_proxy", "grpc_proxy", "all_proxy")
    }
    env.update(
        XLA_FLAGS="--xla_force_host_platform_device_count=2",
        JAX_PLATFORMS="cpu",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONPATH=os.pathsep.join(
            [str(TESTS.parent / "src"), str(TESTS), os.environ.get("PYTHONPATH", "")]
        ),
    )
    script, port = str(Path(__file__).with_name("_multiprocess_script.py")), str(_free_port())
    procs = [
        subprocess.Popen(
            [sys.executable, script, port, str(i), str(folder)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in (0, 1)
    ]
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=TIMEOUT)[0])
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        outputs = [p.communicate()[0] for p in procs]
        pytest.fail(
            f"the processes ran past {TIMEOUT} s:\n" + "\n".join(o[-3000:] for o in outputs)
        )
    for i, (p, out) in enumerate(zip(procs, outputs)):
        assert p.returncode == 0 and f"MULTIPROCESS-OK {i}" in out, f"process {i}:\n{out[-6000:]}"
    return outputs


def test_two_processes_give_the_unsharded_statistics_and_checkpoints_go_both_ways(tmp_path):
    keys = jax.random.split(jax.random.key(0), N)
    a = jax.random.uniform(jax.random.key(1), (T, N, 1), minval=-3.0, maxval=3.0)
    b = jax.random.uniform(jax.random.key(2), (T, N, 1), minval=-3.0, maxval=3.0)
    np.savez(
        tmp_path / "inputs.npz",
        keys=np.asarray(jax.random.key_data(keys)),
        a=np.asarray(a),
        n=N,
        ep=EP,
        buf=BUF,
    )
    env = make()
    reset = jax.jit(lambda k: env.reset(k)[1])
    run = jax.jit(
        lambda s, acts: jax.lax.scan(lambda s, x: (env.step(s, x).state, None), s, acts)[0]
    )
    ref = run(reset(keys), a)  # the unsharded run
    single = run(reset(keys), b)  # another run, whose checkpoint the processes load
    anywrap.save_state(env, tmp_path / "single.safetensors", state=single)
    continued_ref = run(
        anywrap.load_state(env, tmp_path / "single.safetensors", state=reset(keys)), a
    )

    run_processes(tmp_path)

    want = statistics(ref)
    assert float(want["ep.episode_count"]) == N * (T // EP)
    assert not np.allclose(statistics(single)["obs.mean"], want["obs.mean"], rtol=1e-3)
    stats = [dict(np.load(tmp_path / f"stats_{i}.npz")) for i in (0, 1)]
    for k in want:  # both processes hold the same numbers
        np.testing.assert_array_equal(stats[0][k], stats[1][k], err_msg=k)
    close(stats[0], want, "sharded over 2 processes vs unsharded")

    # their checkpoint, loaded into this single-process stack
    loaded = anywrap.load_state(env, tmp_path / "mp.safetensors", state=reset(keys))
    got = statistics(loaded)
    for k in want:  # exactly what the processes held
        np.testing.assert_array_equal(got[k], stats[0][k], err_msg=k)

    # this process's checkpoint, loaded there and continued: as here
    continued = [dict(np.load(tmp_path / f"continued_{i}.npz")) for i in (0, 1)]
    for c in continued:
        close(c, statistics(continued_ref), "continued from a single process's checkpoint")
    assert not np.allclose(continued[0]["obs.mean"], want["obs.mean"], rtol=1e-3)
