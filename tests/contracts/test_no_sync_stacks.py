"""Contract 4 (no host sync on the step path) and Contract 5 (one compiled
dispatch per wrapper step on JAX)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import (
    HostSyncError,
    ReplayEnv,
    ReplayVectorEnv,
    jax_no_host_sync,
    make_backend,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
    run_vector,
    torch_no_host_sync,
    vector_stack,
)

import anywrap


def single_stack(replay):
    env = anywrap.RecordEpisodeStatistics(replay)
    env = anywrap.ClipAction(env)
    env = anywrap.NormalizeObservation(env)
    return anywrap.NormalizeReward(env, gamma=0.99)


MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED]


# ------------------------------------------------------------ the guards work
def test_jax_guard_catches_host_reads():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(3.0)
    reads = [
        lambda: np.asarray(x),
        lambda: np.array(x),
        lambda: np.sum(x),
        lambda: np.add(x, 1),
        lambda: float(x[0]),
        lambda: bool(x[0] > 0),
        lambda: x.tolist(),
        lambda: x[0].item(),
        lambda: 1 if x.any() else 0,
    ]
    with jax_no_host_sync():
        _ = (x + 1) * 2  # device work is fine
        for read in reads:
            with pytest.raises((HostSyncError, RuntimeError)):
                read()
    np.asarray(x)  # and everything is restored afterwards
    assert float(x[1]) == 1.0


def test_torch_guard_catches_host_reads():
    torch = pytest.importorskip("torch")
    t = torch.arange(3.0)
    reads = [
        lambda: t[0].item(),
        lambda: bool(t[0]),
        lambda: float(t[0]),
        lambda: int(t[0]),
        lambda: t.cpu(),
        lambda: t.numpy(),
        lambda: t.tolist(),
        lambda: np.asarray(t),
        lambda: 1 if t.any() else 0,
        # a tensor made from host data: on CUDA a copy that waits for the stream
        lambda: torch.asarray(3.0, dtype=t.dtype),
        lambda: torch.tensor([1.0]),
        lambda: torch.as_tensor(np.zeros(2)),
    ]
    with torch_no_host_sync():
        _ = (t + 1) * 2
        _ = torch.asarray(t, dtype=torch.float64)  # a cast on the device is fine
        _ = torch.where(t > 1, 0.5, t)  # and so is a Python number beside a tensor
        for read in reads:
            with pytest.raises(HostSyncError):
                read()


# ------------------------------------------------------------ the wrappers
@pytest.mark.parametrize("mode", MODES)
def test_jax_vector_stack_never_syncs(mode):
    jax_backend = make_backend("jax")
    traj = record_vector_trajectory(num_envs=6, num_steps=80, autoreset_mode=mode)
    replay = ReplayVectorEnv(traj, jax_backend)
    env = vector_stack(replay)
    run_vector(env, steps=3)  # compile outside the guard (compiling reads constants)
    with jax_no_host_sync():
        out = run_vector(env)
    assert replay.next_kind is None
    ends = sum(
        int(e.terminated.sum() + e.truncated.sum()) for e in traj.events[1:] if e.kind == "step"
    )
    assert ends >= 10  # episode ends (and, in DISABLED mode, masked resets) were crossed
    if mode is AutoresetMode.DISABLED:
        assert any(o[0] == "reset" for o in out)
    assert isinstance(out[-1][1], jax_backend.array_type)


def test_jax_single_stack_never_syncs():
    jax_backend = make_backend("jax")
    replay = ReplayEnv(record_single_trajectory(), jax_backend)
    env = single_stack(replay)
    run_single(env, steps=3)
    with jax_no_host_sync():
        run_single(env)
    assert replay.next_kind is None


@pytest.mark.parametrize("mode", MODES)
def test_torch_vector_stack_never_syncs(mode):
    torch_backend = make_backend("torch")
    traj = record_vector_trajectory(num_envs=6, num_steps=80, autoreset_mode=mode)
    replay = ReplayVectorEnv(traj, torch_backend)
    env = vector_stack(replay)
    run_vector(env, steps=3)  # the state moves to the tensors' device once, at first use
    with torch_no_host_sync():
        run_vector(env)
    assert replay.next_kind is None


def test_torch_single_stack_never_syncs():
    torch_backend = make_backend("torch")
    replay = ReplayEnv(record_single_trajectory(), torch_backend)
    env = single_stack(replay)
    run_single(env, steps=3)  # the state moves to the tensors' device once, at first use
    with torch_no_host_sync():
        run_single(env)
    assert replay.next_kind is None


# ----------------------------------------------------------- Contract 5
def _compiled_functions(env):
    """``(wrapper, key, jitted)`` for every program each anywrap shell of the stack holds."""
    found = []
    while env is not None:
        for key, compiled in getattr(env, "_transforms", {}).items():  # xp.Compiled each
            for fn in compiled._by_type.values():  # the programs made, by array type
                if hasattr(fn, "_cache_size"):  # a jax.jit function (NumPy's are plain)
                    found.append((type(env).__name__, key, fn))
        env = getattr(env, "env", None)
    return found


@pytest.mark.parametrize("mode", MODES)
def test_jax_each_step_is_compiled_once(mode):
    jax_backend = make_backend("jax")
    traj = record_vector_trajectory(num_envs=6, num_steps=80, autoreset_mode=mode)
    env = vector_stack(ReplayVectorEnv(traj, jax_backend))
    # Warm up past the first episode end and (DISABLED) the first masked reset.
    first_reset = next((i for i, e in enumerate(traj.events) if i and e.kind == "reset"), 12)
    run_vector(env, steps=first_reset + 2)
    compiled = _compiled_functions(env)
    assert {w for w, _, _ in compiled} >= {
        "RecordEpisodeStatistics",
        "NormalizeObservation",
        "NormalizeReward",
    }
    for w, name, fn in compiled:
        assert hasattr(fn, "_cache_size"), f"{w}.{name} is not a jax.jit function"
    before = {(w, n, id(fn)): fn._cache_size() for w, n, fn in compiled}
    run_vector(env)  # ~60 more steps, more ends and resets
    after = {(w, n, id(fn)): fn._cache_size() for w, n, fn in _compiled_functions(env)}
    assert after == before, "a jitted transform was compiled again for the same shapes"
    masked = mode is AutoresetMode.DISABLED
    for (w, n, _), size in after.items():
        # Each program is a per-shell partial and sees one signature; a program that a
        # reset runs sees two (the first reset has no mask, the later ones do): the
        # resets, and NormalizeObservation's update, which a masked reset runs too.
        two = n == "reset" or (masked and w == "NormalizeObservation" and n is True)
        assert size <= (2 if two else 1), (w, n, size)


def test_jax_step_traces_transform_once(monkeypatch):
    """Counting traces directly: the transform's Python body runs once, not per step."""
    make_backend("jax")
    from anywrap.transforms import normalize_reward as returns

    calls = []
    real = returns.normalize_reward

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("anywrap.wrappers.stateful_reward.normalize_reward", counting)
    traj = record_vector_trajectory(num_envs=6, num_steps=80)
    env = anywrap.vector.NormalizeReward(ReplayVectorEnv(traj, make_backend("jax")))
    run_vector(env)
    assert len(calls) == 1, f"traced {len(calls)} times for 80 steps"


class _DeviceVectorEnv:
    """A minimal NEXT_STEP vector env whose arrays live in ``xp`` (4 envs, 3-d obs)."""

    def __new__(cls, xp):
        import gymnasium as gym

        class Env(gym.vector.VectorEnv):
            def __init__(self):
                self.num_envs = 4
                self.single_observation_space = gym.spaces.Box(-1, 1, (3,))
                self.single_action_space = gym.spaces.Box(-1, 1, (1,))
                self.observation_space = gym.vector.utils.batch_space(
                    self.single_observation_space, 4
                )
                self.action_space = gym.vector.utils.batch_space(self.single_action_space, 4)
                self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

            def reset(self, seed=None, options=None):
                return xp.zeros((4, 3)), {}

            def step(self, actions):
                flags = xp.zeros(4, dtype=xp.bool)
                return xp.ones((4, 3)), xp.ones(4), flags, flags, {}

        return Env()


@pytest.mark.parametrize("backend", ["jax", "torch"])
@pytest.mark.parametrize(
    "wrapper", ["RecordEpisodeStatistics", "NormalizeReward", "NormalizeObservation"]
)
def test_a_numpy_reset_mask_keeps_the_state_on_the_device(backend, wrapper):
    """Users pass reset masks as NumPy arrays; the device state must not follow them."""
    if backend == "jax":
        jnp = pytest.importorskip("jax.numpy")
        xp, guard, array_type = jnp, jax_no_host_sync, type(jnp.zeros(()))
    else:
        torch = pytest.importorskip("torch")
        xp, guard, array_type = torch, torch_no_host_sync, torch.Tensor
    env = getattr(anywrap.vector, wrapper)(_DeviceVectorEnv(xp))
    env.reset()
    env.step(None)
    with guard():
        env.reset(options={"reset_mask": np.array([True, False, True, False])})
        env.step(None)
    leaves = [v for v in env.state_dict().values()]
    assert leaves and all(isinstance(v, array_type) for v in leaves)
    if wrapper == "NormalizeObservation":  # 4 + 4 + 2 masked + 4 rows seen
        assert float(env.obs_rms.count) == pytest.approx(14 + 1e-4)
