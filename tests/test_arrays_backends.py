"""The array wrappers on every backend against Gymnasium's NumPy numbers (Contracts 2 and 3).

anywrap's wrapper runs over a real NumPy env presented as an env of the
backend (:class:`array_envs.BackendVectorEnv`); the reference is Gymnasium's
wrapper (or, where Gymnasium has no vector version, a Gymnasium vector env of
sub-envs in Gymnasium's single wrapper) over the same NumPy env. Every output
must be an array of the backend, on its device, and agree with Gymnasium:

* exactly for integers and flags;
* within ``tolerance_for`` for floats: 1e-9 relative for float64, 1e-5 for
  float32 (JAX holds float64 values as float32 without x64, and XLA may fuse
  a multiply and an add into one rounding).
"""

from __future__ import annotations

import functools
import warnings

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendEnv, BackendVectorEnv, ScriptedStickyAction, script
from gymnasium.envs.classic_control import CartPoleEnv
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import vector as gym_vector
from helpers import Backend, tolerance_for

import anywrap
from anywrap import xp as axp

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precision lowered.*")
        yield


def expected_dtype(backend: Backend, ref: np.ndarray) -> str:
    name = np.asarray(ref).dtype.name
    if backend.float_dtype == "float32" and name in ("float64", "int64"):
        return name.replace("64", "32")  # JAX without x64
    return name


def check(out, ref, backend: Backend, what: str) -> None:
    """``out`` (anywrap, on ``backend``) agrees with ``ref`` (Gymnasium, NumPy)."""
    if isinstance(ref, dict):
        assert isinstance(out, dict) and set(out) == set(ref), what
        for k in ref:
            check(out[k], ref[k], backend, f"{what}.{k}")
        return
    if isinstance(ref, tuple):
        assert isinstance(out, tuple) and len(out) == len(ref), what
        for i, (o, r) in enumerate(zip(out, ref)):
            check(o, r, backend, f"{what}.{i}")
        return
    assert isinstance(out, backend.array_type), (what, type(out))
    assert axp.same_device(axp.device(out), backend.device), (what, axp.device(out))
    got = np.asarray(backend.to_numpy(out))
    ref = np.asarray(ref)
    assert got.dtype.name == expected_dtype(backend, ref), (what, got.dtype, ref.dtype)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    if np.issubdtype(ref.dtype, np.floating):
        tol = tolerance_for(backend, ref.dtype)
        np.testing.assert_allclose(got, ref, rtol=tol.rtol, atol=tol.atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)


def actions_for(space: gym.Space, n: int, seed: int, batch: int | None = None) -> list:
    rng = np.random.default_rng(seed)
    if isinstance(space, gym.spaces.Box):
        shape = space.shape if batch is None else (batch, *space.shape)
        return [rng.uniform(space.low, space.high, shape).astype(space.dtype) for _ in range(n)]
    space.seed(seed)
    return [
        np.array(space.sample() if batch is None else [space.sample() for _ in range(batch)])
        for _ in range(n)
    ]


def run_vector(ours, ref, backend: Backend, mode: AutoresetMode, steps: int, seed: int = 0):
    """Drive both; compare every output, and the final observations where ``ref`` has them."""
    check(ours.reset(seed=seed)[0], ref.reset(seed=seed)[0], backend, "reset")
    ends = 0
    for t, a in enumerate(actions_for(ref.single_action_space, steps, seed, ref.num_envs)):
        x, y = ours.step(backend.to_backend(a)), ref.step(a)
        for i, name in enumerate(("obs", "reward", "terminated", "truncated")):
            check(x[i], y[i], backend, f"step {t} {name}")
        if "final_obs" in y[4]:
            mask = y[4]["_final_obs"]
            np.testing.assert_array_equal(backend.to_numpy(x[4]["_final_obs"]), mask)
            for i in np.flatnonzero(mask):
                if x[4]["final_obs"].dtype == object:  # a host env's layout
                    check(x[4]["final_obs"][i], y[4]["final_obs"][i], backend, f"step {t}")
                    continue
                xp = axp.namespace(x[0])
                index = xp.asarray([int(i)], device=backend.device)
                row = xp.take(x[4]["final_obs"], index, axis=0)[0, ...]
                check(row, y[4]["final_obs"][i], backend, f"step {t} final_obs[{i}]")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            mask = done.copy()
            x0, _ = ours.reset(options={"reset_mask": backend.to_backend(mask)})
            y0, _ = ref.reset(options={"reset_mask": mask})
            check(x0, y0, backend, f"masked reset after {t}")
    assert ends > 0


def make_vec(env_id: str, mode: AutoresetMode, n: int = 3, **kw) -> gym.vector.VectorEnv:
    return gym.make_vec(
        env_id, n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kw
    )


STATELESS = [
    ("RescaleAction", "Pendulum-v1", (-1.0, 1.0)),
    ("RescaleObservation", "Pendulum-v1", (-1.0, 1.0)),
    ("ClipReward", "Pendulum-v1", (-1.0, 0.5)),
    ("DtypeObservation", "CartPole-v1", (np.float64,)),
    ("FlattenObservation", "Blackjack-v1", ()),
    ("ReshapeObservation", "CartPole-v1", ((2, 2),)),
]


@pytest.mark.parametrize(("name", "env_id", "args"), STATELESS, ids=lambda x: str(x)[:20])
def test_vector_stateless_on_backend(backend, name, env_id, args):
    mode = AutoresetMode.NEXT_STEP
    ours = getattr(anywrap.vector, name)(
        BackendVectorEnv(make_vec(env_id, mode, max_episode_steps=12), backend), *args
    )
    ref = getattr(gym_vector, name)(make_vec(env_id, mode, max_episode_steps=12), *args)
    run_vector(ours, ref, backend, mode, steps=30)


@pytest.mark.parametrize(("name", "env_id", "args"), STATELESS, ids=lambda x: str(x)[:20])
def test_single_stateless_on_backend(backend, name, env_id, args):
    ours = getattr(anywrap, name)(BackendEnv(gym.make(env_id), backend), *args)
    ref = getattr(gym.wrappers, name)(gym.make(env_id), *args)
    run_single(ours, ref, backend, steps=40)


def run_single(ours, ref, backend: Backend, steps: int, seed: int = 0) -> None:
    check(ours.reset(seed=seed)[0], ref.reset(seed=seed)[0], backend, "reset")
    for t, a in enumerate(actions_for(ref.action_space, steps, seed)):
        x, y = ours.step(backend.to_backend(a)), ref.step(a)
        check(x[0], y[0], backend, f"step {t} obs")
        for i, name in enumerate(("reward", "terminated", "truncated"), 1):
            if backend.name == "numpy" and isinstance(x[i], bool | float):
                assert x[i] == y[i], (t, name)  # TimeLimit's Python True, as Gymnasium's
                continue
            check(x[i], np.asarray(y[i]), backend, f"step {t} {name}")
        if y[2] or y[3]:
            check(ours.reset()[0], ref.reset()[0], backend, f"reset after {t}")


# ------------------------------------------------------------------ stateful
def cartpole(limit: int | None) -> gym.Env:
    env = CartPoleEnv()
    return env if limit is None else gym.wrappers.TimeLimit(env, limit)


def pendulum() -> gym.Env:
    return gym.make("Pendulum-v1", max_episode_steps=7)


def vector_case(name: str, mode: AutoresetMode, backend: Backend):
    """``(ours, reference)`` for the stateful wrapper ``name``."""
    n = 3
    if name == "TimeLimit":
        inner = SyncVectorEnv([functools.partial(cartpole, None)] * n, autoreset_mode=mode)
        ours = anywrap.vector.TimeLimit(BackendVectorEnv(inner, backend), 8)
        return ours, SyncVectorEnv([functools.partial(cartpole, 8)] * n, autoreset_mode=mode)
    if name == "TimeAwareObservation":
        inner = SyncVectorEnv([pendulum] * n, autoreset_mode=mode)
        ours = anywrap.vector.TimeAwareObservation(
            BackendVectorEnv(inner, backend), max_timesteps=7
        )

        def sub() -> gym.Env:
            return gym.wrappers.TimeAwareObservation(pendulum())

        return ours, SyncVectorEnv([sub] * n, autoreset_mode=mode)
    if name == "DelayObservation":
        inner = SyncVectorEnv([pendulum] * n, autoreset_mode=mode)
        ours = anywrap.vector.DelayObservation(BackendVectorEnv(inner, backend), 2)

        def sub() -> gym.Env:
            return gym.wrappers.DelayObservation(pendulum(), 2)

        return ours, SyncVectorEnv([sub] * n, autoreset_mode=mode)
    assert name == "StickyAction"  # never sticks: the bare env is the reference
    inner = SyncVectorEnv([pendulum] * n, autoreset_mode=mode)
    ours = anywrap.vector.StickyAction(BackendVectorEnv(inner, backend), 0.0)
    return ours, SyncVectorEnv([pendulum] * n, autoreset_mode=mode)


STATEFUL = ["TimeLimit", "TimeAwareObservation", "DelayObservation", "StickyAction"]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("name", STATEFUL)
def test_vector_stateful_on_backend(backend, name, mode):
    ours, ref = vector_case(name, mode, backend)
    run_vector(ours, ref, backend, mode, steps=26)
    # The state lives with the data (a sticky generator's state too).
    state = ours.state_dict()
    assert state and all(isinstance(v, backend.array_type) for v in state.values())


@pytest.mark.parametrize("name", STATEFUL)
def test_single_stateful_on_backend(backend, name):
    if name == "TimeLimit":
        ours = anywrap.TimeLimit(BackendEnv(CartPoleEnv(), backend), 9)
        ref = gym.wrappers.TimeLimit(CartPoleEnv(), 9)
    elif name == "TimeAwareObservation":
        ours = anywrap.TimeAwareObservation(BackendEnv(pendulum(), backend), normalize_time=True)
        ref = gym.wrappers.TimeAwareObservation(pendulum(), normalize_time=True)
    elif name == "DelayObservation":
        ours = anywrap.DelayObservation(BackendEnv(pendulum(), backend), 3)
        ref = gym.wrappers.DelayObservation(pendulum(), 3)
    else:
        ours = anywrap.StickyAction(BackendEnv(pendulum(), backend), 0.0)
        ref = pendulum()
    run_single(ours, ref, backend, steps=30)


def test_sticky_state_machine_on_backend(backend):
    """The choices on each backend equal Gymnasium's StickyAction on the same draws.

    The draws come from a table: the shell reads it through a scripted key; on
    JAX, which cannot look up a host table inside its compiled step, the jitted
    transform takes the rows as input.
    """
    n, steps = 3, 60
    table = np.random.default_rng(3).random((steps + 1, n, 2))
    clock = [0]

    def sub(i: int) -> gym.Env:
        return ScriptedStickyAction(
            gym.make("Pendulum-v1"),
            table,
            clock,
            i,
            repeat_action_probability=0.5,
            repeat_action_duration=(1, 3),
        )

    ref = SyncVectorEnv([functools.partial(sub, i) for i in range(n)])
    ref.reset(seed=0)
    acts = actions_for(ref.single_action_space, steps, 4, n)
    if backend.name == "jax":
        import jax

        from anywrap.transforms.sticky import init_sticky, sticky_action

        step = jax.jit(functools.partial(sticky_action, p=0.5, low=1, high=3))
        like = backend.to_backend(np.zeros((n, 1), np.float32))
        state = init_sticky(like, batch_shape=(n,), xp=backend.xp)
    else:
        proxy = BackendVectorEnv(SyncVectorEnv([lambda: gym.make("Pendulum-v1")] * n), backend)
        ours = anywrap.vector.StickyAction(proxy, 0.5, (1, 3))
        ours.reset(seed=0)
        script(ours, table, backend.to_backend)
    repeats = 0
    for t, a in enumerate(acts):
        clock[0] = t
        ref.step(a)
        want = np.stack([e.last_action for e in ref.envs])
        if backend.name == "jax":
            state, sent = step(state, backend.to_backend(a), backend.to_backend(table[t]))
        else:
            ours.step(backend.to_backend(a))
            sent = proxy.received[-1]
        check(sent, want, backend, f"step {t}")
        repeats += int((want != a).any(axis=1).sum())
    assert repeats > 10
