"""Test envs and tools for the array wrappers (issue 13, non-image half).

* :class:`CounterVectorEnv`: a vector env whose state lives in any array
  library (NumPy, JAX, PyTorch), in every autoreset mode, with masked
  resets: sub-env ``i`` observes ``[t, i]`` and terminates when ``t``
  reaches ``ends[i]``. Nothing is read on the host, so it drives the no-sync
  tests of the stateful wrappers through episode ends and forced resets.
  :class:`CounterEnv` is one such sub-env as a Gymnasium env (NumPy), and
  :func:`functional_counter` the same as a functional (JAX) env.
* :class:`BackendVectorEnv` / :class:`BackendEnv`: present a real NumPy env
  (vector or single) as an env of another array library, converting its
  outputs and converting actions and reset masks back. Gymnasium's own
  wrappers over the NumPy env are then the reference for anywrap's over the
  converted one.
* :class:`ScriptedKey`: a "generator" whose uniform draws come from a
  table, registered with :func:`anywrap.xp.random.uniform`; and
  :class:`ScriptedStickyAction`, Gymnasium's ``StickyAction`` reading the
  same table, so that both state machines see the same randomness.
* :func:`assert_same`: trees equal bit for bit, dtype and type included.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap.xp import random as arandom


# ------------------------------------------------------------------ counters
class CounterVectorEnv(gym.vector.VectorEnv):
    """Sub-env ``i`` observes ``[t, i]`` (float32), gets reward ``t`` and
    terminates at ``t == ends[i]``; all state in ``xp`` on ``device``."""

    def __init__(
        self,
        xp: Any,
        ends: tuple[int, ...] = (3, 4, 6, 9),
        mode: AutoresetMode = AutoresetMode.NEXT_STEP,
        device: Any = None,
    ) -> None:
        n = len(ends)
        self.xp, self.device = xp, device
        self.num_envs = n
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, n)
        self.metadata = {"autoreset_mode": mode}
        self.mode = mode
        self.ends = xp.asarray(np.array(ends, dtype=np.int32), device=device)
        self.ids = xp.asarray(np.arange(n, dtype=np.float32), device=device)
        self.t = xp.zeros((n,), dtype=xp.int32, device=device)
        self.pending = xp.zeros((n,), dtype=xp.bool, device=device)
        self.received: list[Any] = []
        self.resets: list[Any] = []

    def _obs(self, t: Any) -> Any:
        xp = self.xp
        return xp.stack([xp.astype(t, xp.float32), self.ids], axis=1)

    def sample_action(self) -> Any:
        """A batch of zero actions in the env's library (the contract suite's driver)."""
        return self.xp.zeros((self.num_envs, 1), dtype=self.xp.float32, device=self.device)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        xp = self.xp
        mask = (options or {}).get("reset_mask")
        self.resets.append(mask)
        if mask is None:
            self.t = xp.zeros_like(self.t)
            self.pending = xp.zeros_like(self.pending)
        else:
            self.t = xp.where(mask, xp.zeros_like(self.t), self.t)
            self.pending = xp.logical_and(self.pending, xp.logical_not(mask))
        return self._obs(self.t), {}

    def step(self, actions: Any) -> Any:
        xp = self.xp
        self.received.append(actions)
        one = xp.ones_like(self.t)
        no = xp.zeros_like(self.pending)
        if self.mode is AutoresetMode.NEXT_STEP:
            was = self.pending
            self.t = xp.where(was, xp.zeros_like(self.t), self.t + one)
            term = xp.logical_and(self.t >= self.ends, xp.logical_not(was))
            self.pending = term
            reward = xp.where(was, xp.zeros_like(self.ids), xp.astype(self.t, xp.float32))
            return self._obs(self.t), reward, term, no, {}
        self.t = self.t + one
        term = self.t >= self.ends
        reward = xp.astype(self.t, xp.float32)
        if self.mode is AutoresetMode.SAME_STEP:
            final = self._obs(self.t)
            self.t = xp.where(term, xp.zeros_like(self.t), self.t)
            info = {"final_obs": final, "_final_obs": term}
            return self._obs(self.t), reward, term, no, info
        return self._obs(self.t), reward, term, no, {}


class CounterEnv(gym.Env):
    """One sub-env of :class:`CounterVectorEnv` (NumPy, as Gymnasium envs are)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, index: int, end: int) -> None:
        self.index, self.end, self.t = index, end, 0
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.received: list[Any] = []

    def _obs(self) -> np.ndarray:
        return np.array([self.t, self.index], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        self.received.append(np.array(action))
        self.t += 1
        return self._obs(), np.float32(self.t), self.t >= self.end, False, {}


def functional_counter(ends: tuple[int, ...]) -> Any:
    """:class:`CounterVectorEnv` as a batched, DISABLED functional env (JAX)."""
    import jax.numpy as jnp

    from anywrap.functional import Step

    class Counter:
        observation_space = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        num_envs = len(ends)
        autoreset_mode = AutoresetMode.DISABLED

        def _obs(self, t: Any) -> Any:
            ids = jnp.arange(len(ends), dtype=jnp.float32)
            return jnp.stack([t.astype(jnp.float32), ids], axis=1)

        def reset(self, key: Any) -> Any:
            t = jnp.zeros((len(ends),), jnp.int32)
            return self._obs(t), (t, jnp.zeros((len(ends), 1), jnp.float32))

        def step(self, state: Any, action: Any) -> Any:
            t = state[0] + 1
            term = t >= jnp.asarray(ends, jnp.int32)
            return Step(
                self._obs(t),
                (t, jnp.asarray(action, jnp.float32)),
                t.astype(jnp.float32),
                term,
                jnp.zeros_like(term),
                {},
            )

    return Counter()


# ------------------------------------------------------------------ proxies
def _to(backend: Any, x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _to(backend, v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_to(backend, v) for v in x)
    return backend.to_backend(np.asarray(x))


def _back(backend: Any, x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _back(backend, v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_back(backend, v) for v in x)
    if isinstance(x, np.ndarray | np.generic | int | float | bool):
        return np.asarray(x)
    return np.asarray(backend.to_numpy(x))


class BackendVectorEnv(gym.vector.VectorWrapper):
    """A NumPy vector env presented as one of ``backend``: outputs converted to it,
    actions and reset masks converted back. ``final_obs`` becomes a batch (rows
    without one hold the current observation), as a device env gives it."""

    def __init__(self, env: gym.vector.VectorEnv, backend: Any) -> None:
        super().__init__(env)
        self.backend = backend
        self.received: list[Any] = []

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        if options and "reset_mask" in options:
            mask = np.asarray(_back(self.backend, options["reset_mask"]), dtype=bool)
            if not mask.any():  # a device env takes an empty mask; Gymnasium's refuses it
                return self._last, {}
            options = {**options, "reset_mask": mask}
        obs, _ = self.env.reset(seed=seed, options=options)
        self._last = _to(self.backend, obs)
        return self._last, {}

    def step(self, actions: Any) -> Any:
        self.received.append(actions)
        obs, reward, term, trunc, info = self.env.step(_back(self.backend, actions))
        out = {}
        if "final_obs" in info:
            mask = info["_final_obs"]
            rows = [
                f if m else tuple_row(obs, i)
                for i, (f, m) in enumerate(zip(info["final_obs"], mask))
            ]
            final = tree_stack(rows)
            out = {"final_obs": _to(self.backend, final), "_final_obs": _to(self.backend, mask)}
        self._last = _to(self.backend, obs)
        flags = (_to(self.backend, term), _to(self.backend, trunc))
        return self._last, _to(self.backend, reward), *flags, out


def tuple_row(tree: Any, i: int) -> Any:
    if isinstance(tree, dict):
        return {k: tuple_row(v, i) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(tuple_row(v, i) for v in tree)
    return tree[i]


def tree_stack(rows: list[Any]) -> Any:
    first = rows[0]
    if isinstance(first, dict):
        return {k: tree_stack([r[k] for r in rows]) for k in first}
    if isinstance(first, tuple):
        return tuple(tree_stack([r[j] for r in rows]) for j in range(len(first)))
    return np.stack([np.asarray(r) for r in rows])


class BackendEnv(gym.Wrapper):
    """A NumPy env presented as one of ``backend`` (0-d arrays for reward and flags)."""

    def __init__(self, env: gym.Env, backend: Any) -> None:
        super().__init__(env)
        self.backend = backend

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        obs, _ = self.env.reset(seed=seed, options=options)
        return _to(self.backend, obs), {}

    def step(self, action: Any) -> Any:
        obs, reward, term, trunc, _ = self.env.step(_back(self.backend, action))
        return (
            _to(self.backend, obs),
            _to(self.backend, reward),
            _to(self.backend, term),
            _to(self.backend, trunc),
            {},
        )


# ------------------------------------------------------------ scripted draws
class ScriptedKey:
    """Uniform draws read from ``table[t]`` (``t`` advances each draw)."""

    def __init__(self, table: np.ndarray, to_backend: Any = np.asarray) -> None:
        self.table, self.t, self.to_backend = table, 0, to_backend

    def draw(self, shape: tuple[int, ...]) -> Any:
        row = self.table[self.t]
        self.t += 1
        assert row.shape == shape, (row.shape, shape)
        return self.to_backend(row)


def script(env: Any, table: np.ndarray, to_backend: Any = np.asarray) -> ScriptedKey:
    """Make a (reset) StickyAction shell draw from ``table`` from now on."""
    key = ScriptedKey(table, to_backend)
    env._stream.live, env._stream.live_for = key, env._state.key
    return key


@arandom.uniform.register(ScriptedKey)
def _scripted_uniform(key: ScriptedKey, shape: tuple[int, ...]) -> tuple[Any, Any]:
    return key, key.draw(shape)


class ScriptedStickyAction(gym.wrappers.StickyAction):
    """Gymnasium's StickyAction, its ``np_random`` replaced by the table's column ``index``:
    ``uniform()`` gives ``u`` of the current step, ``integers(low, high)`` the length the
    draw ``v`` stands for (``low + floor(v * (high - low))``, ``high`` exclusive)."""

    def __init__(self, env: gym.Env, table: np.ndarray, clock: list[int], index: Any, **kw: Any):
        super().__init__(env, **kw)
        wrapper = self

        class Fake:
            def uniform(self) -> float:
                return float(wrapper._row()[0])

            def integers(self, low: int, high: int) -> int:
                return int(low + np.floor(wrapper._row()[1] * (high - low)))

        self._fake, self._table, self._clock, self._index = Fake(), table, clock, index

    def _row(self) -> np.ndarray:
        return self._table[self._clock[0]][self._index]

    @property
    def np_random(self) -> Any:  # type: ignore[override]
        return self._fake


# ------------------------------------------------------------------ compare
def assert_same(a: Any, b: Any, what: str = "", *, numpy_scalars: bool = False) -> None:
    """Trees equal bit for bit, dtypes and scalar-vs-array types included.

    ``numpy_scalars``: a Python number inside an observation may come back as
    a NumPy scalar of the same value (anywrap keeps observations as arrays).
    """
    if isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), (what, a, b)
        for k in b:
            assert_same(a[k], b[k], f"{what}.{k}", numpy_scalars=numpy_scalars)
        return
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), (what, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{what}.{i}", numpy_scalars=numpy_scalars)
        return
    if numpy_scalars and isinstance(b, bool | int | float) and isinstance(a, np.generic):
        assert a.shape == () and a == b, (what, a, b)
        return
    if isinstance(b, bool | int | float):
        assert type(a) is type(b) and a == b, (what, a, b)
        return
    assert type(a) is type(b), (what, type(a), type(b))
    assert np.asarray(a).dtype == np.asarray(b).dtype, (
        what,
        np.asarray(a).dtype,
        np.asarray(b).dtype,
    )
    np.testing.assert_array_equal(a, b, err_msg=what)


def assert_final_obs(a: dict[str, Any], b: dict[str, Any], what: str = "") -> None:
    """Gymnasium's packed ``final_obs`` (object arrays with None) equal entry by entry."""
    assert ("final_obs" in a) == ("final_obs" in b), (what, list(a), list(b))
    if "final_obs" not in b:
        return
    np.testing.assert_array_equal(a["_final_obs"], b["_final_obs"], err_msg=what)
    for i, (x, y) in enumerate(zip(a["final_obs"], b["final_obs"])):
        if y is None:
            assert x is None, (what, i, x)
        else:
            assert_same(x, y, f"{what}.final_obs[{i}]")
