"""Drivers and comparisons for the array and time wrappers' tests (tests/wrappers/,
tests/vector/ and tests/transforms/ for ClipReward, DtypeObservation,
FlattenObservation, ReshapeObservation, RescaleAction, RescaleObservation,
TimeLimit, TimeAwareObservation, DelayObservation and StickyAction).

* :func:`drive_single` / :func:`drive_vector`: anywrap's wrapper and Gymnasium's
  reference stepped side by side on NumPy, every output compared bit for bit
  (:func:`array_envs.assert_same`), resets where episodes end.
* :func:`run_single_on` / :func:`run_vector_on`: anywrap's wrapper over a NumPy env
  presented in another library (:class:`array_envs.BackendEnv`) against Gymnasium's
  over the NumPy env: outputs of the backend, on its device, within
  :func:`helpers.tolerance_for`.
* :func:`single_parity` / :func:`vector_parity` / :func:`stateless_on`: the
  stateless wrappers' side-by-side runs, by name.
* :func:`assert_never_syncs`: a vector wrapper over a device
  :class:`array_envs.CounterVectorEnv`, in any autoreset mode, stepped under the
  no-sync guards; on JAX no transform is compiled again once warm.
* :func:`stepped`, :func:`fails_cleanly`, :func:`checkpoint_continues`: bad input
  changes nothing; a checkpoint continues bit for bit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from array_envs import BackendEnv, BackendVectorEnv, CounterVectorEnv, assert_final_obs, assert_same
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as gym_vector
from helpers import (
    Backend,
    assert_same_state,
    flat_state,
    jax_no_host_sync,
    make_backend,
    tolerance_for,
    torch_no_host_sync,
)

import anywrap
from anywrap import xp as axp

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]
GUARDS = {"jax": jax_no_host_sync, "torch": torch_no_host_sync}


def make_vec(env_id: str, n: int, mode: AutoresetMode, **kwargs: Any) -> gym.vector.VectorEnv:
    return gym.make_vec(
        env_id,
        num_envs=n,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **kwargs,
    )


def sub_envs(make: Callable[[], gym.Env], n: int, mode: AutoresetMode) -> gym.vector.SyncVectorEnv:
    """A Gymnasium vector env of ``n`` envs made by ``make`` (the vector wrappers'
    reference, where Gymnasium has no vector version or refuses the mode)."""
    return gym.vector.SyncVectorEnv([make] * n, autoreset_mode=mode)


def actions_for(
    space: gym.Space, n: int, seed: int, *, batch: int | None = None, mixed: bool = True
) -> list:
    """Random actions; Box actions in float64 and, with ``mixed``, float32 on odd steps
    (dtypes must survive)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        if isinstance(space, gym.spaces.Box):
            shape = space.shape if batch is None else (batch, *space.shape)
            low = np.where(np.isfinite(space.low), space.low, -1.0)
            high = np.where(np.isfinite(space.high), space.high, 1.0)
            a = rng.uniform(low, high, shape)
            out.append(a.astype(np.float32) if t % 2 and mixed else a)
        else:
            space.seed(int(rng.integers(2**31)))
            out.append(
                space.sample()
                if batch is None
                else np.array([space.sample() for _ in range(batch)])
            )
    return out


def drive_single(
    ours: gym.Env, theirs: gym.Env, actions: list, seed: int = 3, numpy_scalars: bool = False
) -> int:
    """Step both through ``actions``, resetting both where an episode ends; compare all.
    Returns the number of episode ends."""
    same = functools.partial(assert_same, numpy_scalars=numpy_scalars)
    same(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0], "reset")
    ends = 0
    for t, a in enumerate(actions):
        x, y = ours.step(a), theirs.step(a)
        same(x[0], y[0], f"step {t} obs")
        for i, name in enumerate(("reward", "terminated", "truncated"), 1):
            assert_same(x[i], y[i], f"step {t} {name}")
        if y[2] or y[3]:
            ends += 1
            same(ours.reset()[0], theirs.reset()[0], f"reset after {t}")
    return ends


def drive_vector(ours: Any, theirs: Any, actions: list, mode: AutoresetMode, seed: int = 5) -> int:
    """:func:`drive_single` for vector envs (``info["final_obs"]`` compared too); in
    DISABLED mode both are reset with the ``reset_mask`` of the episodes that ended."""
    assert_same(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0], "reset")
    ends = 0
    for t, a in enumerate(actions):
        x, y = ours.step(a), theirs.step(a)
        for i, name in enumerate(("obs", "reward", "terminated", "truncated")):
            assert_same(x[i], y[i], f"step {t} {name}")
        assert_final_obs(x[4], y[4], f"step {t}")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            x0, _ = ours.reset(options={"reset_mask": done.copy()})
            y0, _ = theirs.reset(options={"reset_mask": done.copy()})
            assert_same(x0, y0, f"masked reset after {t}")
    return ends


QUIET = [
    pytest.mark.filterwarnings("ignore:.*precision lowered.*"),
    pytest.mark.filterwarnings("ignore:.*is out of date.*"),
]
"""``pytestmark = QUIET``: Gymnasium's warnings that these runs expect (float64 bounds
of a float32 Box, an old env version)."""


def single_parity(name: str, env_id: str, args: tuple, steps: int = 300) -> None:
    """``anywrap.<name>`` beside ``gymnasium.wrappers.<name>`` on ``env_id``: same spaces,
    the same outputs bit for bit."""
    ours = getattr(anywrap, name)(gym.make(env_id), *args)
    theirs = getattr(gym.wrappers, name)(gym.make(env_id), *args)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    drive_single(ours, theirs, actions_for(ours.action_space, steps, seed=1))


def vector_parity(name: str, env_id: str, args: tuple, mode: AutoresetMode) -> None:
    """``anywrap.vector.<name>`` beside Gymnasium's vector wrapper, which refuses SAME_STEP
    for observations: there the reference is sub-envs in Gymnasium's single wrapper."""
    kwargs = {"max_episode_steps": 15} if env_id != "FrozenLake-v1" else {}
    ours = getattr(anywrap.vector, name)(make_vec(env_id, 3, mode, **kwargs), *args)
    if mode is AutoresetMode.SAME_STEP and name != "RescaleAction":
        theirs = sub_envs(
            lambda: getattr(gym.wrappers, name)(gym.make(env_id, **kwargs), *args), 3, mode
        )
    else:
        theirs = getattr(gym_vector, name)(make_vec(env_id, 3, mode, **kwargs), *args)
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.observation_space == theirs.observation_space
    assert ours.single_action_space == theirs.single_action_space
    assert drive_vector(ours, theirs, actions_for(ours.single_action_space, 40, 2, batch=3), mode)


def stateless_on(backend: Backend, name: str, env_id: str, args: tuple, vector: bool) -> None:
    """A stateless wrapper over ``env_id`` presented in ``backend``, beside Gymnasium's."""
    if vector:
        mode = AutoresetMode.NEXT_STEP
        inner = BackendVectorEnv(make_vec(env_id, 3, mode, max_episode_steps=12), backend)
        ref = getattr(gym_vector, name)(make_vec(env_id, 3, mode, max_episode_steps=12), *args)
        run_vector_on(backend, getattr(anywrap.vector, name)(inner, *args), ref, mode, steps=30)
    else:
        ours = getattr(anywrap, name)(BackendEnv(gym.make(env_id), backend), *args)
        run_single_on(backend, ours, getattr(gym.wrappers, name)(gym.make(env_id), *args), 40)


# ------------------------------------------------------------------ other backends
def _expected_dtype(backend: Backend, ref: np.ndarray) -> str:
    name = np.asarray(ref).dtype.name
    if backend.float_dtype == "float32" and name in ("float64", "int64"):
        return name.replace("64", "32")  # JAX without x64
    return name


def check_on(backend: Backend, out: Any, ref: Any, what: str) -> None:
    """``out`` (anywrap, on ``backend``) agrees with ``ref`` (Gymnasium, NumPy): exactly
    for integers and flags, within :func:`helpers.tolerance_for` for floats."""
    if isinstance(ref, dict):
        assert isinstance(out, dict) and set(out) == set(ref), what
        for k in ref:
            check_on(backend, out[k], ref[k], f"{what}.{k}")
        return
    if isinstance(ref, tuple):
        assert isinstance(out, tuple) and len(out) == len(ref), what
        for i, (o, r) in enumerate(zip(out, ref)):
            check_on(backend, o, r, f"{what}.{i}")
        return
    assert isinstance(out, backend.array_type), (what, type(out))
    assert str(axp.device(out)) == str(backend.device), (what, axp.device(out))
    got, ref = np.asarray(backend.to_numpy(out)), np.asarray(ref)
    assert got.dtype.name == _expected_dtype(backend, ref), (what, got.dtype, ref.dtype)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    if np.issubdtype(ref.dtype, np.floating):
        tol = tolerance_for(backend, ref.dtype)
        np.testing.assert_allclose(got, ref, rtol=tol.rtol, atol=tol.atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)


def _backend_actions(space: gym.Space, n: int, seed: int, batch: int | None = None) -> list:
    rng = np.random.default_rng(seed)
    if isinstance(space, gym.spaces.Box):
        shape = space.shape if batch is None else (batch, *space.shape)
        return [rng.uniform(space.low, space.high, shape).astype(space.dtype) for _ in range(n)]
    space.seed(seed)
    return [
        np.array(space.sample() if batch is None else [space.sample() for _ in range(batch)])
        for _ in range(n)
    ]


def run_single_on(backend: Backend, ours: Any, ref: Any, steps: int, seed: int = 0) -> None:
    """Drive a single env on ``backend`` beside Gymnasium's on NumPy; compare all."""
    check_on(backend, ours.reset(seed=seed)[0], ref.reset(seed=seed)[0], "reset")
    for t, a in enumerate(_backend_actions(ref.action_space, steps, seed)):
        x, y = ours.step(backend.to_backend(a)), ref.step(a)
        check_on(backend, x[0], y[0], f"step {t} obs")
        for i, name in enumerate(("reward", "terminated", "truncated"), 1):
            if backend.name == "numpy" and isinstance(x[i], bool | float):
                assert x[i] == y[i], (t, name)  # TimeLimit's Python True, as Gymnasium's
                continue
            check_on(backend, x[i], np.asarray(y[i]), f"step {t} {name}")
        if y[2] or y[3]:
            check_on(backend, ours.reset()[0], ref.reset()[0], f"reset after {t}")


def run_vector_on(
    backend: Backend, ours: Any, ref: Any, mode: AutoresetMode, steps: int, seed: int = 0
) -> None:
    """:func:`run_single_on` for vector envs, the final observations included."""
    check_on(backend, ours.reset(seed=seed)[0], ref.reset(seed=seed)[0], "reset")
    ends = 0
    for t, a in enumerate(_backend_actions(ref.single_action_space, steps, seed, ref.num_envs)):
        x, y = ours.step(backend.to_backend(a)), ref.step(a)
        for i, name in enumerate(("obs", "reward", "terminated", "truncated")):
            check_on(backend, x[i], y[i], f"step {t} {name}")
        if "final_obs" in y[4]:
            mask = y[4]["_final_obs"]
            np.testing.assert_array_equal(backend.to_numpy(x[4]["_final_obs"]), mask)
            for i in np.flatnonzero(mask):
                row = tree_row(backend, x[4]["final_obs"], int(i))
                check_on(backend, row, y[4]["final_obs"][i], f"step {t} final_obs[{i}]")
        done = y[2] | y[3]
        ends += int(done.sum())
        if mode is AutoresetMode.DISABLED and done.any():
            mask = done.copy()
            x0, _ = ours.reset(options={"reset_mask": backend.to_backend(mask)})
            y0, _ = ref.reset(options={"reset_mask": mask})
            check_on(backend, x0, y0, f"masked reset after {t}")
    assert ends > 0


def tree_row(backend: Backend, batch: Any, i: int) -> Any:
    """Row ``i`` of a batch of the backend (taken without boolean or integer scalars)."""
    if isinstance(batch, dict):
        return {k: tree_row(backend, v, i) for k, v in batch.items()}
    if isinstance(batch, tuple):
        return tuple(tree_row(backend, v, i) for v in batch)
    if isinstance(batch, np.ndarray) and batch.dtype == object:  # Gymnasium's host layout
        return batch[i]
    xp = axp.namespace(batch)
    return xp.take(batch, xp.asarray([i], device=backend.device), axis=0)[0, ...]


# ------------------------------------------------------------------ no host sync
def assert_never_syncs(wrap: Callable[[Any], Any], lib: str, mode: AutoresetMode) -> Any:
    """``wrap(counter)`` over a :class:`CounterVectorEnv` in ``lib`` and ``mode`` steps
    through episode ends and (DISABLED) masked resets with a device mask, under the
    no-sync guard; on JAX no transform is compiled again once warm. Returns the env."""
    backend = make_backend(lib)
    xp = backend.xp
    counter = CounterVectorEnv(xp, mode=mode, device=backend.device)
    env = wrap(counter)
    env.reset(seed=0)

    def drive(steps: int) -> list:
        outs = []
        for _ in range(steps):
            out = env.step(counter.sample_action())
            outs.append(out)
            if mode is AutoresetMode.DISABLED:
                env.reset(options={"reset_mask": xp.logical_or(out[2], out[3])})
        return outs

    drive(12)  # warm up: compile, and the first ends and resets
    sizes = _cache_sizes(env) if lib == "jax" else {}
    if lib == "jax":
        assert sizes, "no compiled transform"
    with GUARDS[lib]():
        outs = drive(20)
    # Contract 5: one program per transform, reused at every step.
    assert (_cache_sizes(env) if lib == "jax" else {}) == sizes, "a transform was compiled again"
    last = outs[-1]
    leaves = [last[0]] if not isinstance(last[0], dict) else list(last[0].values())
    assert all(isinstance(x, backend.array_type) for x in (*leaves, *last[1:4]))
    return env


def _cache_sizes(env: Any) -> dict[Any, int]:
    """The jitted programs' cache sizes: each :class:`anywrap.xp.Compiled` the shell
    holds (alone or in a dict of its transforms), per array type it has met."""
    sizes = {}
    for name, held in vars(env).items():
        for key, fn in held.items() if isinstance(held, dict) else [(None, held)]:
            if isinstance(fn, anywrap.xp.Compiled):
                for tp, jitted in fn._by_type.items():
                    if hasattr(jitted, "_cache_size"):
                        sizes[name, key, tp] = jitted._cache_size()
    return sizes


# ------------------------------------------------------------------ bad input, checkpoints
def stepped(env: Any, steps: int = 3) -> Any:
    """``env`` reset and stepped with sampled actions."""
    env.reset(seed=0)
    for _ in range(steps):
        env.step(env.action_space.sample())
    return env


def fails_cleanly(env: Any, call: Callable[[], Any], exc: Any, *patterns: str) -> None:
    """``call()`` raises ``exc`` with every pattern in its message, and ``env``'s state
    is as it was."""
    before = flat_state(env)
    with pytest.raises(exc) as info:
        call()
    for p in patterns:
        assert re.search(p, str(info.value)), (p, str(info.value))
    assert_same_state(flat_state(env), before)


def bad_reset_masks_change_nothing(env: Any) -> None:
    """A ``reset_mask`` of the wrong shape or dtype is refused, naming the wrapper."""
    name = type(env).__name__
    for bad in (np.array([True, False]), np.array([1, 0, 1])):
        fails_cleanly(
            env,
            lambda bad=bad: env.reset(options={"reset_mask": bad}),
            ValueError,
            rf"anywrap\.vector\.{name}",
            r"bool array of shape \(3,\)",
        )


def foreign_state_changes_nothing(env: Any, other: Any) -> None:
    """``load_state_dict`` of another shape, or with a key missing, changes nothing."""
    fails_cleanly(env, lambda: env.load_state_dict(other.state_dict()), ValueError, r"shape")
    missing = dict(list(env.state_dict().items())[1:])
    fails_cleanly(env, lambda: env.load_state_dict(missing), KeyError, r"missing|expected")


def checkpoint_continues(make: Callable[[], Any], path: Any) -> None:
    """Save mid-episode, run on, load into a fresh stack over an env in the same state:
    both continue with the same outputs (a sticky generator included)."""
    pytest.importorskip("safetensors")
    acts = [np.array([np.sin(t)], np.float32) for t in range(20)]
    first = make()
    first.reset(seed=1)
    for a in acts[:6]:
        first.step(a)
    anywrap.save_state(first, path)
    env_state = first.unwrapped.state.copy()
    want = [first.step(a)[:4] for a in acts[6:]]
    second = make()
    second.reset(seed=99)
    anywrap.load_state(second, path)
    second.unwrapped.state = env_state
    got = [second.step(a)[:4] for a in acts[6:]]
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g[0], w[0])
        assert g[1:] == w[1:]
