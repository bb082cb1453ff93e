"""Shared test utilities: backends, replay environments and no-sync guards.

* :class:`Backend` / :func:`make_backend`: one array library (NumPy, JAX,
  PyTorch, array-api-strict) with ``to_backend(np_array)`` and
  ``to_numpy(array)``. The ``backend`` fixture in ``conftest.py`` gives one
  per parametrisation.
* :class:`VectorTrajectory` / :func:`record_vector_trajectory`: a trajectory
  recorded once from a real NumPy vector env (Pendulum-v1 with staggered time
  limits, half of which end in ``terminated``), or built from arrays with
  :meth:`VectorTrajectory.from_arrays`.
* :class:`ReplayVectorEnv`: a ``gymnasium.vector.VectorEnv`` that replays a
  :class:`VectorTrajectory` as arrays of a chosen backend (all converted up
  front, so replaying never converts or syncs). It ignores the actions it is
  given but keeps them in ``received_actions``.
* :class:`SingleTrajectory` / :func:`record_single_trajectory` /
  :class:`ReplayEnv`: the same for one env.
* :func:`run_vector` / :func:`run_single`: drive a wrapper stack through the
  rest of a replay (resets where the recording reset, the recorded actions in
  between), collecting the outputs.
* :func:`jax_no_host_sync` / :func:`torch_no_host_sync`: context managers
  that make any device-to-host read fail (Contract 4).
* References from outside the code under test: :func:`moments_with_prior`
  (a float64 closed form of the running moments) and :data:`GYM_VECTOR`
  (Gymnasium's own vector wrappers, taught anywrap's documented partial
  reset so that the comparison runs to the end of a DISABLED trajectory).

Everything returned by the ``record_*`` functions is cached and read-only:
call ``.copy()`` before editing a trajectory (e.g. to put a NaN in it).
"""

from __future__ import annotations

import contextlib
import copy as _copy
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

__all__ = [
    "BACKENDS",
    "GYM_VECTOR",
    "Backend",
    "Event",
    "KeepResetMask",
    "ReplayEnv",
    "ReplayVectorEnv",
    "SingleTrajectory",
    "VectorTrajectory",
    "jax_no_host_sync",
    "make_backend",
    "moments_with_prior",
    "record_single_trajectory",
    "record_vector_trajectory",
    "run_single",
    "run_vector",
    "torch_no_host_sync",
]

BACKENDS = ("numpy", "jax", "torch", "array_api_strict")


# ------------------------------------------------------------------ backends
@dataclass(frozen=True)
class Backend:
    """An array library as the tests see it."""

    name: str
    xp: ModuleType
    """Its Array API namespace (``array_api_compat.torch`` for PyTorch)."""
    array_type: type | tuple[type, ...]
    """What ``isinstance`` accepts as this library's array (NumPy: ndarray or scalar)."""
    to_backend: Callable[[Any], Any]
    """NumPy array (or scalar) -> array of this library, on its default device."""
    to_numpy: Callable[[Any], np.ndarray]
    """Array of this library -> NumPy array (a host copy)."""
    device: Any
    """The device ``to_backend`` puts arrays on."""
    float_dtype: str = "float64"
    """The widest float this library holds by default (float32 for JAX without x64)."""

    def __repr__(self) -> str:
        return f"Backend({self.name})"


def make_backend(name: str) -> Backend:
    """The :class:`Backend` called ``name``; skips the test if the library is absent."""
    if name == "numpy":
        return Backend(
            "numpy",
            np,
            (np.ndarray, np.generic),
            lambda x: np.array(x, copy=True),
            np.asarray,
            "cpu",
        )
    if name == "jax":
        jax = pytest.importorskip("jax")
        jnp = pytest.importorskip("jax.numpy")
        wide = "float64" if jax.config.read("jax_enable_x64") else "float32"
        return Backend(
            "jax",
            jnp,
            jax.Array,
            lambda x: jnp.asarray(np.asarray(x)),
            lambda x: np.asarray(x),
            jax.devices("cpu")[0],
            wide,
        )
    if name == "torch":
        torch = pytest.importorskip("torch")
        from array_api_compat import torch as torch_xp

        return Backend(
            "torch",
            torch_xp,
            torch.Tensor,
            lambda x: torch.from_numpy(np.array(x, copy=True)),
            lambda x: x.detach().cpu().numpy(),
            torch.device("cpu"),
        )
    if name == "array_api_strict":
        xs = pytest.importorskip("array_api_strict")
        probe = xs.asarray(0.0)
        return Backend(
            "array_api_strict",
            xs,
            type(probe),
            lambda x: xs.asarray(np.array(x, copy=True)),
            lambda x: np.from_dlpack(x).copy(),
            probe.device,
        )
    if name == "tensorflow":  # not in BACKENDS: its own tests (test_tensorflow.py) use it
        tf = pytest.importorskip("tensorflow")
        import anywrap.backends.tensorflow as tfb

        return Backend(
            "tensorflow",
            tfb.namespace,
            tf.Tensor,
            lambda x: tf.constant(np.array(x, copy=True)),
            lambda x: np.array(x.numpy(), copy=True),
            "cpu",
        )
    raise ValueError(f"unknown backend {name!r}; expected one of {BACKENDS}")


# -------------------------------------------------------------- trajectories
class Event(NamedTuple):
    """One recorded call: ``kind`` is ``"reset"`` or ``"step"``.

    Vector: arrays over sub-envs. Single: ``obs`` an array, the others scalars
    as the env returned them. ``reset_mask`` is set on masked vector resets.
    """

    kind: str
    obs: Any
    reward: Any = None
    terminated: Any = None
    truncated: Any = None
    reset_mask: Any = None


def _freeze(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        x.setflags(write=False)
    return x


@dataclass
class VectorTrajectory:
    """A vector env's recorded resets and steps, with the actions it was given."""

    single_observation_space: gym.spaces.Box
    single_action_space: gym.spaces.Box
    num_envs: int
    autoreset_mode: AutoresetMode
    events: list[Event]
    actions: list[np.ndarray]
    """The action batch given to each step event, in order."""

    @classmethod
    def from_arrays(
        cls,
        obs: np.ndarray,
        rewards: np.ndarray,
        terminated: np.ndarray | None = None,
        truncated: np.ndarray | None = None,
        *,
        actions: np.ndarray | None = None,
        action_space: gym.spaces.Box | None = None,
        autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP,
    ) -> VectorTrajectory:
        """A trajectory of one reset (``obs[0]``) then ``len(rewards)`` steps.

        ``obs`` has shape ``(T + 1, num_envs, *obs_shape)``; ``rewards``,
        ``terminated``, ``truncated`` ``(T, num_envs)``. The observation
        space is an unbounded Box of ``obs``'s dtype.
        """
        steps, n = rewards.shape
        assert obs.shape[:2] == (steps + 1, n), (obs.shape, rewards.shape)
        terminated = np.zeros((steps, n), bool) if terminated is None else terminated
        truncated = np.zeros((steps, n), bool) if truncated is None else truncated
        action_space = action_space or gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        if actions is None:
            actions = np.zeros((steps, n, *action_space.shape), action_space.dtype)
        events = [Event("reset", _freeze(np.array(obs[0])))]
        for t in range(steps):
            events.append(
                Event(
                    "step",
                    *(
                        _freeze(np.array(a))
                        for a in (obs[t + 1], rewards[t], terminated[t], truncated[t])
                    ),
                )
            )
        space = gym.spaces.Box(-np.inf, np.inf, obs.shape[2:], obs.dtype)
        return cls(space, action_space, n, autoreset_mode, events, list(actions))

    @property
    def num_steps(self) -> int:
        return sum(e.kind == "step" for e in self.events)

    def copy(self) -> VectorTrajectory:
        """A writable deep copy (to edit values, e.g. put a NaN in)."""
        new = _copy.deepcopy(self)
        for e in new.events:
            for a in e:
                if isinstance(a, np.ndarray):
                    a.setflags(write=True)
        return new


class _TruncationAsTermination(gym.Wrapper):
    """Reports the time limit's ``truncated`` as ``terminated`` (to get both kinds of end)."""

    def step(self, action: Any) -> Any:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated or truncated, False, info


def _pendulum(max_steps: int, terminate: bool) -> gym.Env:
    env = gym.make("Pendulum-v1", max_episode_steps=max_steps)
    return _TruncationAsTermination(env) if terminate else env


def fixed_actions(num_steps: int, num_envs: int | None, scale: float = 3.0) -> np.ndarray:
    """A deterministic action sequence for Pendulum, partly outside its [-2, 2] bounds."""
    t = np.arange(num_steps, dtype=np.float64)[:, None]
    k = np.arange(num_envs or 1, dtype=np.float64)[None, :]
    a = (scale * np.sin(0.37 * t + k)).astype(np.float32)[..., None]
    return a if num_envs is not None else a[:, 0]


@functools.cache
def record_vector_trajectory(
    num_envs: int = 4,
    num_steps: int = 60,
    *,
    seed: int = 0,
    autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP,
) -> VectorTrajectory:
    """Record a SyncVectorEnv of Pendulum-v1 (cached, read-only; ``.copy()`` to edit).

    Sub-env ``i`` ends every ``9 + 3 * i`` steps, in ``terminated`` for even
    ``i`` and ``truncated`` for odd ``i``, so episode ends are staggered and of
    both kinds. NEXT_STEP: the env resets itself on the step after an end.
    DISABLED: after any step with an end, the recording calls
    ``reset(options={"reset_mask": terminated | truncated})``.
    """
    if autoreset_mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
        raise ValueError(f"only NEXT_STEP and DISABLED are recorded, got {autoreset_mode}")
    fns = [functools.partial(_pendulum, 9 + 3 * i, i % 2 == 0) for i in range(num_envs)]
    env = gym.vector.SyncVectorEnv(fns, autoreset_mode=autoreset_mode)
    actions = fixed_actions(num_steps, num_envs)
    obs, _ = env.reset(seed=seed)
    events = [Event("reset", _freeze(obs.copy()))]
    for t in range(num_steps):
        obs, rew, term, trunc, _ = env.step(actions[t])
        events.append(Event("step", *(_freeze(np.array(a)) for a in (obs, rew, term, trunc))))
        done = term | trunc
        if autoreset_mode is AutoresetMode.DISABLED and done.any() and t + 1 < num_steps:
            mask = done.copy()
            obs, _ = env.reset(options={"reset_mask": mask.copy()})
            events.append(Event("reset", _freeze(obs.copy()), reset_mask=_freeze(mask)))
    traj = VectorTrajectory(
        env.single_observation_space,
        env.single_action_space,
        num_envs,
        autoreset_mode,
        events,
        [_freeze(a) for a in actions],
    )
    env.close()
    return traj


@dataclass
class SingleTrajectory:
    """One env's recorded resets and steps, with the actions it was given."""

    observation_space: gym.spaces.Box
    action_space: gym.spaces.Box
    events: list[Event]
    actions: list[np.ndarray]

    def copy(self) -> SingleTrajectory:
        """A writable deep copy."""
        new = _copy.deepcopy(self)
        for e in new.events:
            for a in e:
                if isinstance(a, np.ndarray):
                    a.setflags(write=True)
        return new


@functools.cache
def record_single_trajectory(num_steps: int = 50, *, seed: int = 0) -> SingleTrajectory:
    """Record Pendulum-v1 with episodes of 12 steps, alternately terminated and truncated.

    After each end the recording resets (as a Gymnasium user does). Cached, read-only.
    """
    envs = [_pendulum(12, True), _pendulum(12, False)]
    actions = fixed_actions(num_steps, None)
    episode = 0
    env = envs[0]
    obs, _ = env.reset(seed=seed)
    events = [Event("reset", _freeze(obs.copy()))]
    for t in range(num_steps):
        obs, rew, term, trunc, _ = env.step(actions[t])
        events.append(Event("step", _freeze(obs.copy()), rew, term, trunc))
        if (term or trunc) and t + 1 < num_steps:
            episode += 1
            env = envs[episode % 2]
            obs, _ = env.reset(seed=seed + episode)
            events.append(Event("reset", _freeze(obs.copy())))
    space, aspace = envs[0].observation_space, envs[0].action_space
    for e in envs:
        e.close()
    return SingleTrajectory(space, aspace, events, [_freeze(a) for a in actions])


# -------------------------------------------------------------- replay envs
class _Replay:
    """What both replay envs share: an event cursor and converted events."""

    position: int
    _events: list[Event]

    def _next(self, kind: str) -> Event:
        if self.position >= len(self._events):
            raise RuntimeError(f"{type(self).__name__}: the replay is over")
        event = self._events[self.position]
        if event.kind != kind:
            raise RuntimeError(
                f"{type(self).__name__}: {kind}() called, but the recording "
                f"has a {event.kind} at event {self.position}"
            )
        self.position += 1
        self.step_index += kind == "step"
        return event

    @property
    def next_kind(self) -> str | None:
        """``"reset"`` or ``"step"``: what the recording did next (None at the end)."""
        return self._events[self.position].kind if self.position < len(self._events) else None

    def action(self, i: int | None = None) -> Any:
        """The recorded action of step ``i`` (default: the next step), in the backend."""
        return self._actions[self.step_index if i is None else i]


class ReplayVectorEnv(_Replay, gym.vector.VectorEnv):
    """Replays a :class:`VectorTrajectory` as arrays of ``backend``.

    ``start`` skips to an event index (e.g. to continue where another replay
    stopped). ``reset()`` and ``step()`` must come in the recorded order; the
    actions given are kept in ``received_actions`` and otherwise ignored.
    """

    def __init__(self, traj: VectorTrajectory, backend: Backend, start: int = 0) -> None:
        self.traj, self.backend = traj, backend
        self.num_envs = traj.num_envs
        self.single_observation_space = traj.single_observation_space
        self.single_action_space = traj.single_action_space
        self.observation_space = gym.vector.utils.batch_space(
            traj.single_observation_space, traj.num_envs
        )
        self.action_space = gym.vector.utils.batch_space(traj.single_action_space, traj.num_envs)
        self.metadata = {"autoreset_mode": traj.autoreset_mode}
        conv = backend.to_backend
        self._events = [
            Event(e.kind, *(None if a is None else conv(a) for a in e[1:])) for e in traj.events
        ]
        self._actions = [conv(a) for a in traj.actions]
        self.position = start
        self.step_index = sum(e.kind == "step" for e in traj.events[:start])
        self.received_actions: list[Any] = []
        self.reset_options: list[Any] = []

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        e = self._next("reset")
        self.reset_options.append(options)
        return e.obs, {}

    def step(self, actions: Any) -> Any:
        e = self._next("step")
        self.received_actions.append(actions)
        return e.obs, e.reward, e.terminated, e.truncated, {}


class ReplayEnv(_Replay, gym.Env):
    """Replays a :class:`SingleTrajectory` in ``backend``.

    On NumPy the values are exactly what the env returned (Python / NumPy
    scalars for reward and flags); on other backends they are 0-d arrays.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, traj: SingleTrajectory, backend: Backend, start: int = 0) -> None:
        self.traj, self.backend = traj, backend
        self.observation_space = traj.observation_space
        self.action_space = traj.action_space
        if backend.name == "numpy":
            self._events = list(traj.events)
            self._actions = list(traj.actions)
        else:
            conv = backend.to_backend
            self._events = [
                Event(e.kind, *(None if a is None else conv(np.asarray(a)) for a in e[1:]))
                for e in traj.events
            ]
            self._actions = [conv(a) for a in traj.actions]
        self.position = start
        self.step_index = sum(e.kind == "step" for e in traj.events[:start])
        self.received_actions: list[Any] = []

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return self._next("reset").obs, {}

    def step(self, action: Any) -> Any:
        e = self._next("step")
        self.received_actions.append(action)
        return e.obs, e.reward, e.terminated, e.truncated, {}


def _replay_of(env: Any) -> Any:
    while not isinstance(env, _Replay):
        env = env.env
    return env


def run_vector(stack: Any, steps: int | None = None, seed: int | None = 0) -> list[tuple]:
    """Drive ``stack`` (whose innermost env is a :class:`ReplayVectorEnv`) through the replay.

    Resets where the recording reset: the first with ``seed``, later (masked)
    ones with ``reset_mask = terminated | truncated`` of the previous step,
    computed in the backend (so no host value is read). Steps with the
    recorded actions. Stops after ``steps`` step calls, or at the end.

    Returns ``[("reset", obs, info) | ("step", obs, reward, term, trunc, info)]``.
    """
    replay = _replay_of(stack)
    xp = replay.backend.xp
    out: list[tuple] = []
    done_steps = 0
    last = None
    while replay.next_kind is not None and (steps is None or done_steps < steps):
        if replay.next_kind == "reset":
            if last is None:
                obs, info = stack.reset(seed=seed)
            else:
                mask = xp.logical_or(last[3], last[4])
                obs, info = stack.reset(options={"reset_mask": mask})
            out.append(("reset", obs, info))
        else:
            last = ("step", *stack.step(replay.action()))
            out.append(last)
            done_steps += 1
    return out


def run_single(stack: Any, steps: int | None = None, seed: int | None = 0) -> list[tuple]:
    """:func:`run_vector` for one env (a :class:`ReplayEnv` innermost)."""
    replay = _replay_of(stack)
    out: list[tuple] = []
    done_steps = 0
    first = True
    while replay.next_kind is not None and (steps is None or done_steps < steps):
        if replay.next_kind == "reset":
            obs, info = stack.reset(seed=seed if first else None)
            first = False
            out.append(("reset", obs, info))
        else:
            out.append(("step", *stack.step(replay.action())))
            done_steps += 1
    return out


# ------------------------------------------------------------ no-sync guards
class HostSyncError(AssertionError):
    """A device array's value was read on the host."""


@contextlib.contextmanager
def jax_no_host_sync() -> Iterator[None]:
    """Fail on any device-to-host read of a JAX array.

    ``jax.transfer_guard_device_to_host("disallow")`` alone does not catch
    NumPy reading a CPU array (through the buffer protocol, no transfer
    happens), so this also makes NumPy functions and ufuncs refuse JAX arrays
    (``__array_function__`` / ``__array_ufunc__``), ``np.asarray`` and
    friends refuse them, and reading ``_value`` (behind ``float``, ``bool``,
    ``int``, ``.item()``, ``.tolist()``) fail.
    """
    import jax

    impl = type(jax.numpy.zeros(()))

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise HostSyncError("a JAX array was read on the host (or given to NumPy)")

    def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(a: Any = None, *args: Any, **kwargs: Any) -> Any:
            if isinstance(a, jax.Array):
                refuse()
            return fn(a, *args, **kwargs)

        return wrapper

    # Metadata-only NumPy functions (JAX itself calls np.ndim on its arrays).
    metadata_only = {np.ndim, np.shape, np.size, np.result_type}

    def array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in metadata_only:
            return func._implementation(*args, **kwargs)
        refuse()

    patched_type = {
        "__array_function__": array_function,
        "__array_ufunc__": refuse,
        "_value": property(refuse),
    }
    saved_type = {k: impl.__dict__.get(k, _MISSING) for k in patched_type}
    np_names = ("asarray", "array", "asanyarray", "ascontiguousarray")
    saved_np = {k: getattr(np, k) for k in np_names}
    try:
        for k, v in patched_type.items():
            setattr(impl, k, v)
        for k in np_names:
            setattr(np, k, guarded(saved_np[k]))
        with jax.transfer_guard_device_to_host("disallow"):
            yield
    finally:
        for k, v in saved_np.items():
            setattr(np, k, v)
        for k, v in saved_type.items():
            if v is _MISSING:
                delattr(impl, k)
            else:
                setattr(impl, k, v)


_MISSING = object()

_TORCH_SYNCS = frozenset(
    {"item", "__bool__", "__float__", "__int__", "__index__", "cpu", "numpy", "tolist", "__array__"}
)


# Tensors made from host data: on CUDA, a copy from pageable memory that waits for the stream.
# (torch.from_numpy is a CPU view that no function mode sees; its copy would be a `.to`,
# which on a CPU-only machine cannot be told apart.)
_TORCH_FROM_HOST = frozenset({"asarray", "tensor", "as_tensor", "scalar_tensor"})


@contextlib.contextmanager
def torch_no_host_sync() -> Iterator[None]:
    """Fail on ``Tensor.item``, ``__bool__``, ``__float__``, ``__int__``, ``__index__``,
    ``.cpu()``, ``.numpy()``, ``.tolist()`` and ``__array__`` (NumPy conversion), and on
    a tensor made from host data (``torch.asarray(3.0)``: on CUDA a synchronising copy)."""
    import torch
    from torch.overrides import TorchFunctionMode

    class NoSync(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            name = getattr(func, "__name__", "")
            if name in _TORCH_SYNCS:
                raise HostSyncError(f"torch.Tensor.{name} called on the step path")
            data = args[0] if args else (kwargs or {}).get("obj", (kwargs or {}).get("data"))
            if name in _TORCH_FROM_HOST and not isinstance(data, torch.Tensor):
                raise HostSyncError(
                    f"torch.{name}({type(data).__name__}) on the step path: a copy from the host"
                )
            return func(*args, **(kwargs or {}))

    with NoSync():
        yield


# ------------------------------------------------------------------ misc
def flat_state(stack: Any) -> dict[str, np.ndarray]:
    """Every anywrap wrapper's state in ``stack`` as NumPy copies (for before/after checks),
    but the episode start times, which are saved relative to the clock and move with it."""
    from anywrap.checkpoint import stack_state_dict
    from anywrap.xp import to_numpy

    return {
        k: np.array(to_numpy(v), copy=True)
        for k, v in stack_state_dict(stack).items()
        if not k.endswith("start_time")
    }


def assert_same_state(
    a: dict[str, np.ndarray], b: dict[str, np.ndarray], *, same_dtype: bool = True
) -> None:
    """Two :func:`flat_state` results are equal, bit for bit (NaN equal to NaN).

    ``same_dtype=False`` compares values only (for two stacks that may hold an
    entry in different widths): a double-word count (``x``, ``x_lo``) by its total,
    which a float64 count holds in ``x`` alone.

    Episode start times are saved relative to the moment of saving (so that a
    restored episode keeps its true duration), so two reads taken apart in
    time differ by that time: those entries are compared within a minute (a
    loaded machine can stall for seconds; a clock that was not re-based would
    be off by the process's whole age, or by the epoch).
    """
    assert sorted(a) == sorted(b)
    for k in a:
        if same_dtype:
            assert a[k].dtype == b[k].dtype, (k, a[k].dtype, b[k].dtype)
        if k.endswith("start_time"):
            np.testing.assert_allclose(a[k], b[k], atol=60.0, err_msg=k)
            continue
        if not same_dtype and (k + "_lo" in a or (k.endswith("_lo") and k[:-3] in a)):
            hi = k.removesuffix("_lo")
            totals = [np.float64(s[hi]) + np.float64(s[hi + "_lo"]) for s in (a, b)]
            np.testing.assert_array_equal(*totals, err_msg=f"{hi} + {hi}_lo")
            continue
        np.testing.assert_array_equal(a[k], b[k], err_msg=k, strict=same_dtype)


@dataclass
class Tolerance:
    rtol: float
    atol: float = field(default=0.0)


def tolerance_for(backend: Backend, dtype: Any = None) -> Tolerance:
    """Agreement expected with the NumPy path for values of ``dtype``.

    float32 values (observations everywhere; everything on JAX without x64)
    agree to float32 rounding, amplified a little by normalisation; float64
    values to 1e-9 relative.
    """
    name = str(dtype).rsplit(".", 1)[-1] if dtype is not None else backend.float_dtype
    if name != "float64" or backend.float_dtype == "float32":
        return Tolerance(1e-5, 1e-5)
    return Tolerance(1e-9, 1e-12)


def vector_stack(replay: Any, lib: Any = None) -> Any:
    """The CleanRL six-wrapper vector stack over ``replay``, clipping in its library.

    ``lib`` is ``anywrap.vector`` (the default) or :data:`GYM_VECTOR`, the reference.
    """
    import anywrap

    lib = anywrap.vector if lib is None else lib
    xp = replay.backend.xp
    env = lib.RecordEpisodeStatistics(replay)
    env = lib.ClipAction(env)
    env = lib.NormalizeObservation(env)
    env = lib.TransformObservation(env, lambda o: xp.clip(o, -5.0, 5.0))
    env = lib.NormalizeReward(env, gamma=0.99)
    return lib.TransformReward(env, lambda r: xp.clip(r, -5.0, 5.0))


# ------------------------------------------------------------------ oracles
def moments_with_prior(
    data: Any, prior_count: float = 1e-4
) -> tuple[np.ndarray, np.ndarray, float]:
    """Mean, population variance and count of the rows of ``data`` (axis 0), in float64.

    The closed form of what a running merge ends with when it starts, as
    Gymnasium's ``RunningMeanStd`` does, from ``prior_count`` pseudo-samples of
    mean 0 and variance 1: pooled over the prior and the data,
    ``mean = sum(x) / n`` and ``var = (c (1 + mean^2) + sum((x - mean)^2)) / n``
    with ``n = c + len(x)``. It does not depend on how the rows were batched.
    """
    x = np.asarray(data, dtype=np.float64)
    n = prior_count + x.shape[0]
    mean = x.sum(axis=0) / n
    var = (prior_count * (1.0 + mean**2) + np.square(x - mean).sum(axis=0)) / n
    return mean, var, n


class KeepResetMask(gym.vector.VectorWrapper):
    """Hands the env below a copy of ``options``.

    Gymnasium's ``SyncVectorEnv`` pops ``reset_mask`` out of the options it is
    given, so its ``RecordEpisodeStatistics``, which reads the mask after
    the env has reset, never sees it and restarts every sub-env. Between the
    two, this shim lets Gymnasium's own code take the masked branch it has.
    """

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return self.env.reset(seed=seed, options=None if options is None else dict(options))


class _ReportsNextStep(gym.vector.VectorWrapper):
    """Reports NEXT_STEP autoreset to the wrapper above (see :class:`_GymNormalizeObservation`)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.metadata = {**env.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}


def _mask_of(options: dict[str, Any] | None) -> np.ndarray | None:
    return None if options is None else options.get("reset_mask")


class _GymNormalizeObservation(gym.wrappers.vector.NormalizeObservation):
    """Gymnasium's vector NormalizeObservation, with anywrap's two documented additions.

    * DISABLED autoreset: Gymnasium's refuses it, although its step treats
      every mode alike (each returned batch updates the statistics); the env
      below is shown to it as NEXT_STEP, and the modes differ only in resets.
    * A partial reset feeds only the masked rows to the statistics (Gymnasium
      refuses partial resets), then normalises the whole batch with its formula.
    """

    def __init__(self, env: Any, epsilon: float = 1e-8) -> None:
        super().__init__(_ReportsNextStep(env), epsilon)
        self.metadata = env.metadata

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        mask = _mask_of(options)
        if mask is None:
            return super().reset(seed=seed, options=options)
        obs, info = self.env.reset(seed=seed, options=options)
        learn = self.update_running_mean
        if learn:
            self.obs_rms.update(obs[mask])
        self.update_running_mean = False
        try:
            return self.observations(obs), info
        finally:
            self.update_running_mean = learn


class _GymNormalizeReward(gym.wrappers.vector.NormalizeReward):
    """Gymnasium's vector NormalizeReward, with anywrap's documented partial reset.

    A reset with a ``reset_mask`` zeroes only the masked sub-envs' returns and
    done flags; Gymnasium's zeroes every sub-env's. Everything else is its code.
    """

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        mask = _mask_of(options)
        # Gymnasium before 1.4 keeps no done flags (its step resets G on the done
        # step itself: see OLDER_GYMNASIUM in conftest.py).
        dones = getattr(self, "_prev_dones", None)
        acc, dones = self.accumulated_reward.copy(), None if dones is None else dones.copy()
        out = super().reset(seed=seed, options=options)
        if mask is not None:
            self.accumulated_reward[~mask] = acc[~mask]
            if dones is not None:
                self._prev_dones[~mask] = dones[~mask]
        return out


class _GymRecordEpisodeStatistics(gym.wrappers.vector.RecordEpisodeStatistics):
    """Gymnasium's vector RecordEpisodeStatistics, whose ``info["_episode"]`` is kept.

    Gymnasium hands out its own ``prev_dones`` array as ``info["_episode"]``,
    and a later masked reset writes into it; a copy keeps what the step reported.
    """

    def step(self, actions: Any) -> Any:
        obs, reward, terminated, truncated, info = super().step(actions)
        key = f"_{self._stats_key}"
        if key in info:
            info[key] = np.array(info[key], copy=True)
        return obs, reward, terminated, truncated, info


GYM_VECTOR = SimpleNamespace(
    RecordEpisodeStatistics=_GymRecordEpisodeStatistics,
    ClipAction=gym.wrappers.vector.ClipAction,
    NormalizeObservation=_GymNormalizeObservation,
    TransformObservation=gym.wrappers.vector.TransformObservation,
    NormalizeReward=_GymNormalizeReward,
    TransformReward=gym.wrappers.vector.TransformReward,
)
"""The reference for the vector shells: Gymnasium 1.4's wrappers, run on NumPy.

On NEXT_STEP trajectories they are Gymnasium's, unchanged. For DISABLED
ones with partial resets, ``NormalizeObservation`` and ``NormalizeReward``
follow anywrap's documented deviation (README: only the masked sub-envs are
reset) and ``RecordEpisodeStatistics`` takes its own masked branch when the
env below keeps the mask (a :class:`ReplayVectorEnv` does; wrap a
``SyncVectorEnv`` in :class:`KeepResetMask`). All arithmetic is Gymnasium's.
"""


def _torch_traces_whole() -> bool:
    """Whether the installed PyTorch's TorchDynamo traces the transforms whole (2.13 and
    2.14 do; 2.7, the floor, stops at ``NamedTuple._replace``, union types and
    ``callable``, and runs those transforms eagerly after one warning). Read without
    importing torch."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(p) for p in version("torch").split("+")[0].split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return True
    return (major, minor) >= (2, 13)


needs_whole_traces = pytest.mark.xfail(
    not _torch_traces_whole(),
    strict=True,
    reason="PyTorch before 2.13: TorchDynamo cannot trace these transforms whole, which then "
    "run eagerly after one warning",
)
