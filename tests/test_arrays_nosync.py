"""Contracts 4 and 5 for the array wrappers: no host sync on the step path (JAX, PyTorch),
and on JAX each wrapper step is compiled once and reused.

The vector wrappers run over :class:`array_envs.CounterVectorEnv`, whose
state lives on the device, in every autoreset mode, across episode ends,
masked resets (DISABLED) and the resets a time limit forces; the single-env
wrappers over a replay of a recorded Pendulum trajectory.
"""

from __future__ import annotations

import numpy as np
import pytest
from array_envs import CounterVectorEnv
from gymnasium.vector import AutoresetMode
from helpers import (
    ReplayEnv,
    jax_no_host_sync,
    make_backend,
    record_single_trajectory,
    run_single,
    torch_no_host_sync,
)

import anywrap


def compiled(env) -> list:
    """``(attribute, jitted function)`` of every Compiled transform the wrapper holds."""
    from anywrap.xp import Compiled

    out = []
    for name, value in vars(env).items():
        for c in value.values() if isinstance(value, dict) else [value]:
            if isinstance(c, Compiled):
                out += [(name, fn) for fn in c._by_type.values()]
    return out


MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
GUARDS = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}

VECTOR = {
    "TimeLimit": lambda e: anywrap.vector.TimeLimit(e, 5),
    "TimeAwareObservation": lambda e: anywrap.vector.TimeAwareObservation(e, max_timesteps=9),
    "TimeAwareObservation(dict)": lambda e: anywrap.vector.TimeAwareObservation(
        e, flatten=False, normalize_time=True, max_timesteps=9
    ),
    "DelayObservation": lambda e: anywrap.vector.DelayObservation(e, 2),
    "StickyAction": lambda e: anywrap.vector.StickyAction(e, 0.5, (1, 3)),
    "RescaleAction": lambda e: anywrap.vector.RescaleAction(e, 0.0, 2.0),
    "RescaleObservation": lambda e: anywrap.vector.RescaleObservation(
        e, np.array([-np.inf, -np.inf]), np.array([np.inf, np.inf])
    ),
    "ClipReward": lambda e: anywrap.vector.ClipReward(e, 0.0, 2.5),
    "DtypeObservation": lambda e: anywrap.vector.DtypeObservation(e, np.float16),
    "FlattenObservation": lambda e: anywrap.vector.FlattenObservation(e),
    "ReshapeObservation": lambda e: anywrap.vector.ReshapeObservation(e, (2, 1)),
}


def drive(env, counter, xp, steps: int, mode: AutoresetMode) -> list:
    """Step with device actions; in DISABLED mode reset the ended sub-envs with a device mask."""
    outs = []
    action = xp.zeros((counter.num_envs, 1), dtype=xp.float32)
    for _ in range(steps):
        out = env.step(action)
        outs.append(out)
        if mode is AutoresetMode.DISABLED:
            env.reset(options={"reset_mask": xp.logical_or(out[2], out[3])})
    return outs


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("name", list(VECTOR))
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_vector_wrapper_never_syncs(lib, name, mode):
    """No host sync (JAX and torch); on JAX, no transform is compiled again once warm."""
    backend = make_backend(lib)
    xp = backend.xp
    counter = CounterVectorEnv(xp, mode=mode, device=backend.device)
    env = VECTOR[name](counter)
    env.reset(seed=0)
    drive(env, counter, xp, 12, mode)  # warm up: compile, and the first ends and resets
    fns = compiled(env)
    if lib == "jax":
        assert fns and all(hasattr(fn, "_cache_size") for _, fn in fns), name
    before = {(n, id(fn)): fn._cache_size() for n, fn in fns if lib == "jax"}
    with GUARDS[lib]():
        outs = drive(env, counter, xp, 20, mode)
    # Contract 5: one compiled program per transform, reused at every step. (jax shares
    # a jitted function's cache between jit objects of one transform, so only growth
    # is checked, as in test_nosync.py.)
    after = {(n, id(fn)): fn._cache_size() for n, fn in compiled(env) if lib == "jax"}
    assert after == before, f"{name}: a transform was compiled again for the same shapes"
    last = outs[-1]
    leaves = [last[0]] if not isinstance(last[0], dict) else list(last[0].values())
    assert all(isinstance(x, backend.array_type) for x in (*leaves, *last[1:4]))
    if name == "TimeLimit":
        masks = [m for m in counter.resets if m is not None]
        assert masks, "the limit's truncations never reset a sub-env"


@pytest.mark.parametrize(
    "name",
    [
        "TimeLimit",
        "TimeAwareObservation",
        "DelayObservation",
        "StickyAction",
        "RescaleAction",
        "ClipReward",
    ],
)
@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_single_wrapper_never_syncs(lib, name):
    backend = make_backend(lib)
    replay = ReplayEnv(record_single_trajectory(), backend)
    env = {
        "TimeLimit": lambda e: anywrap.TimeLimit(e, 5),
        "TimeAwareObservation": lambda e: anywrap.TimeAwareObservation(e, max_timesteps=12),
        "DelayObservation": lambda e: anywrap.DelayObservation(e, 2),
        "StickyAction": lambda e: anywrap.StickyAction(e, 0.5, (1, 2)),
        "RescaleAction": lambda e: anywrap.RescaleAction(e, -1.0, 1.0),
        "ClipReward": lambda e: anywrap.ClipReward(e, -1.0, None),
    }[name](replay)
    run_single(env, steps=3)
    with GUARDS[lib]():
        out = run_single(env)
    assert replay.next_kind is None
    assert isinstance(out[-1][1], backend.array_type)


def test_time_limit_numbers_on_a_device_counter():
    """The forced resets on a device env, against the counter's closed form: sub-env i
    ends by itself at step ends[i]; the limit (5) ends those with ends[i] > 5."""
    backend = make_backend("jax")
    xp = backend.xp
    ends = (3, 4, 6, 9)
    counter = CounterVectorEnv(xp, ends=ends, mode=AutoresetMode.SAME_STEP)
    env = anywrap.vector.TimeLimit(counter, 5)
    env.reset(seed=0)
    action = xp.zeros((4, 1), dtype=xp.float32)
    for t in range(1, 31):
        obs, _, term, trunc, info = env.step(action)
        for i, end in enumerate(ends):
            length = min(end, 5)
            k = (t - 1) % length + 1  # the step of sub-env i's current episode
            assert bool(term[i]) == (k == end), (t, i)
            assert bool(trunc[i]) == (k == 5), (t, i)
            assert float(obs[i, 0]) == (0 if k == length else k), (t, i)
            if k == length:
                assert bool(info["_final_obs"][i]) and float(info["final_obs"][i, 0]) == k


@pytest.mark.parametrize("lib", ["numpy", "jax", "torch"])
def test_delay_ring_copies_no_batch(lib):
    """Each step the ring takes the env's batch itself and keeps the older ones as they
    were: the same buffers, whatever the library (a jitted step would copy an array it
    returns unchanged, so the ring turns outside it)."""
    backend = make_backend(lib)
    xp = backend.xp
    counter = CounterVectorEnv(xp, device=backend.device)
    env = anywrap.vector.DelayObservation(counter, 3)
    env.reset(seed=0)

    def address(x):
        if lib == "jax":
            return x.unsafe_buffer_pointer()
        return x.data_ptr() if lib == "torch" else x.__array_interface__["data"][0]

    action = xp.zeros((4, 1), dtype=xp.float32)
    for _ in range(4):
        env.step(action)
    before = [address(q) for q in env._state.queue]
    env.step(action)
    after = [address(q) for q in env._state.queue]
    assert after[:-1] == before[1:]
