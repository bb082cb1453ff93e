"""Image envs for the image wrappers' tests.

* :class:`ImageEnv`: a Gymnasium env of deterministic RGB frames (uint8,
  Atari's 210x160x3 by default), reward ``t``, episodes of a fixed length
  that end in ``terminated`` or ``truncated``.
* :func:`record_image_vector` / :class:`ImageReplayVectorEnv`: a trajectory
  recorded from a Gymnasium ``SyncVectorEnv`` of :class:`ImageEnv` in any
  autoreset mode (masked resets after each done in DISABLED mode; the final
  observations in SAME_STEP mode), replayed as arrays of any backend, with
  ``info["final_obs"]`` as a batch (meaningful where ``info["_final_obs"]``).
* :func:`gym_reference`: Gymnasium's own outputs for the same trajectory,
  from its single-env wrappers applied to each sub-env (the only way
  Gymnasium stacks frames of a vector env).
* :class:`DeviceImageEnv`: :class:`ImageEnv`'s frames pre-rendered in a library,
  for single wrappers on device arrays; ``ImageReplayVectorEnv(..., cycle=True)``
  for vector ones. Both have the ``sample_action()`` of the contract suite's
  ``array_env``.
* :func:`torch_compiling`: PyTorch's compiled path switched on (each signature
  compiled on its second call), yielding the compile log from there.
* :func:`count_compiled_calls`: the compiled calls each layer of a wrapper stack makes.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from helpers import make_backend

SHAPE = (210, 160, 3)
SMALL = (42, 32, 3)
"""A small frame, where the size does not matter (the contract cases, the no-sync runs)."""


class ImageEnv(gym.Env):
    """Deterministic RGB frames: frame ``t`` of episode ``e`` is a smooth pattern
    with sharp edges and noise, different for every (env, episode, step)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, index: int = 0, length: int = 7, shape: tuple[int, ...] = SHAPE) -> None:
        self.index, self.length, self.shape = index, length, shape
        self.observation_space = gym.spaces.Box(0, 255, shape, np.uint8)
        self.action_space = gym.spaces.Discrete(3)
        self.episode, self.t = -1, 0

    def frame(self) -> np.ndarray:
        rng = np.random.default_rng([self.index, self.episode, self.t])
        h, w = self.shape[:2]
        y, x = np.mgrid[0:h, 0:w]
        base = (x * (3 + self.index) + y * (1 + self.t) + 17 * self.episode) % 256
        blocks = ((x // 8 + y // 8 + self.t) % 2) * 120  # Atari-like sharp edges
        noise = rng.integers(0, 40, self.shape)
        img = base[..., None] + blocks[..., None] + noise
        if len(self.shape) == 3:
            img = img + np.arange(self.shape[2]) * 50
        return (img % 256).astype(np.uint8)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        super().reset(seed=seed)
        self.episode += 1
        self.t = 0
        return self.frame(), {}

    def step(self, action: Any) -> Any:
        self.t += 1
        end = self.t % self.length == 0
        terminated = end and self.episode % 2 == 0
        truncated = end and not terminated
        return self.frame(), float(self.t + 0.5 * int(action)), terminated, truncated, {}


ENV_ID = "anywrap-test/Images-v0"
""":class:`ImageEnv` registered, so that a spec can name it (``gym.make(env.spec)``)."""
if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point=ImageEnv)


def env_fns(num_envs: int, shape: tuple[int, ...] = SHAPE, wrap: Any = None) -> list[Any]:
    """Sub-env ``i`` has episodes of ``3 + 2 i`` steps (staggered ends)."""

    def make(i: int) -> gym.Env:
        env = ImageEnv(i, 3 + 2 * i, shape)
        return wrap(env) if wrap is not None else env

    return [functools.partial(make, i) for i in range(num_envs)]


@dataclass
class ImageTrajectory:
    """What a NumPy SyncVectorEnv of :class:`ImageEnv` returned, call by call."""

    num_envs: int
    mode: AutoresetMode
    shape: tuple[int, ...]
    calls: list[tuple]
    """``("reset", obs, mask)`` or ``("step", obs, reward, term, trunc, final, final_mask)``."""


def _drive(env: Any, num_envs: int, mode: AutoresetMode, steps: int) -> list[tuple]:
    out: list[tuple] = []
    obs, _ = env.reset(seed=0)
    out.append(("reset", obs, None))
    actions = np.arange(steps * num_envs).reshape(steps, num_envs) % 3
    for t in range(steps):
        obs, rew, term, trunc, info = env.step(actions[t])
        final, fmask = None, None
        if "final_obs" in info:
            fmask = np.asarray(info["_final_obs"]).copy()
            final = info["final_obs"]
        out.append(("step", obs, rew, term, trunc, final, fmask))
        done = term | trunc
        if mode is AutoresetMode.DISABLED and done.any() and t + 1 < steps:
            mask = done.copy()
            obs, _ = env.reset(options={"reset_mask": mask.copy()})
            out.append(("reset", obs, mask))
    return out


@functools.cache
def record_image_vector(
    num_envs: int = 4,
    steps: int = 16,
    mode: AutoresetMode = AutoresetMode.NEXT_STEP,
    shape: tuple[int, ...] = SHAPE,
) -> ImageTrajectory:
    """Record a SyncVectorEnv of :class:`ImageEnv` (cached)."""
    env = gym.vector.SyncVectorEnv(env_fns(num_envs, shape), autoreset_mode=mode)
    calls = []
    for c in _drive(env, num_envs, mode, steps):
        if c[0] == "step" and c[5] is not None:
            rows = [f if m else o for f, m, o in zip(c[5], c[6], c[1])]
            c = (*c[:5], np.stack(rows), c[6])
        calls.append(tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in c))
    env.close()
    return ImageTrajectory(num_envs, mode, shape, calls)


def gym_reference(traj: ImageTrajectory, wrap: Any) -> list[tuple]:
    """Gymnasium's outputs on the same trajectory: ``wrap`` (Gymnasium's single-env
    wrappers) around each sub-env, in a SyncVectorEnv of the same mode."""
    env = gym.vector.SyncVectorEnv(
        env_fns(traj.num_envs, traj.shape, wrap), autoreset_mode=traj.mode
    )
    out = _drive(env, traj.num_envs, traj.mode, sum(c[0] == "step" for c in traj.calls))
    env.close()
    return out


class ImageReplayVectorEnv(gym.vector.VectorEnv):
    """Replays an :class:`ImageTrajectory` as arrays of ``backend`` (converted up front);
    ``cycle``: past the end, the steps again from the first (no reset between)."""

    def __init__(self, traj: ImageTrajectory, backend: Any, cycle: bool = False) -> None:
        self.traj, self.backend, self.cycle = traj, backend, cycle
        self.num_envs = traj.num_envs
        self.single_observation_space = gym.spaces.Box(0, 255, traj.shape, np.uint8)
        self.single_action_space = gym.spaces.Discrete(3)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": traj.mode}
        conv = backend.to_backend
        self._calls = [
            tuple(conv(a) if isinstance(a, np.ndarray) else a for a in c) for c in traj.calls
        ]
        self.position = 0

    @property
    def next_kind(self) -> str | None:
        return self._calls[self.position][0] if self.position < len(self._calls) else None

    def _next(self, kind: str) -> tuple:
        if self.cycle and self.position == len(self._calls):
            self.position = 1
        c = self._calls[self.position]
        assert c[0] == kind, (kind, c[0], self.position)
        self.position += 1
        return c

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return self._next("reset")[1], {}

    def step(self, actions: Any) -> Any:
        _, obs, rew, term, trunc, final, fmask = self._next("step")
        info: dict[str, Any] = {}
        if final is not None:
            info = {"final_obs": final, "_final_obs": fmask}
        return obs, rew, term, trunc, info

    def sample_action(self) -> Any:
        return np.zeros(self.num_envs, np.int64)  # replayed: the actions are not used


class DeviceImageEnv(gym.Env):
    """:class:`ImageEnv`'s first episode (its reset frame, then ``steps`` steps),
    pre-rendered as arrays of ``library``; past the last step the steps come again
    (without a reset). Rewards and flags are Python values, as Gymnasium's single
    envs return them."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, library: str, length: int = 5, steps: int = 12, shape: Any = SMALL):
        backend = make_backend(library)
        src = ImageEnv(0, length, shape)
        self.observation_space, self.action_space = src.observation_space, src.action_space
        self.frames = [backend.to_backend(src.reset(seed=0)[0])]
        self.flags = []
        for _ in range(steps):
            obs, reward, terminated, truncated, _ = src.step(0)
            self.frames.append(backend.to_backend(obs))
            self.flags.append((reward, terminated, truncated))
        self.t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.t = 0
        return self.frames[0], {}

    def step(self, action: Any) -> Any:
        i = self.t % len(self.flags)
        self.t += 1
        return (self.frames[i + 1], *self.flags[i], {})

    def sample_action(self) -> int:
        return 0


@contextlib.contextmanager
def torch_compiling() -> Iterator[Callable[[], list[Any]]]:
    """PyTorch's compiled path on, each signature compiled on its second call; yields
    ``() -> `` the compile log from here."""
    from anywrap import xp

    previous = xp.set_compile(True, after_calls=2)
    start = len(xp.compile_log())
    try:
        yield lambda: xp.compile_log()[start:]
    finally:
        xp.set_compile(previous, after_calls=xp.switch.AFTER_CALLS)


@contextlib.contextmanager
def eager_jax_ops() -> Iterator[list[str]]:
    """The names of the JAX primitives run eagerly inside the block (an eager op goes
    through ``Primitive.bind``; a cached jitted call does not)."""
    from jax._src import core as jcore

    names: list[str] = []
    bind = jcore.Primitive.bind

    def counted(self: Any, *a: Any, **k: Any) -> Any:
        names.append(self.name)
        return bind(self, *a, **k)

    jcore.Primitive.bind = counted  # type: ignore[method-assign]
    try:
        yield names
    finally:
        jcore.Primitive.bind = bind  # type: ignore[method-assign]


def count_compiled_calls(stack: Any, inner: Any, calls: list[str]) -> None:
    """Make every compiled program of each layer of ``stack`` above ``inner`` (a fused
    run's: of its outermost layer) append its layer's class name to ``calls`` when
    called (JAX: each must be a ``jax.jit`` function, so that a step through the layer
    is one compiled call)."""
    from anywrap import xp
    from anywrap.shell.fusion import PROGRAMS

    layer = stack
    while layer is not inner:
        name = type(layer).__name__
        for held in [*vars(layer).values(), PROGRAMS.get(layer, {})]:
            for compiled in held.values() if isinstance(held, dict) else [held]:
                if not isinstance(compiled, xp.Compiled):
                    continue
                table = compiled._by_type  # the programs made so far, by array type
                for key, fn in list(table.items()):
                    assert hasattr(fn, "_cache_size"), (name, key)  # a jax.jit function

                    def counted(*a: Any, _fn: Any = fn, _name: str = name, **k: Any) -> Any:
                        calls.append(_name)
                        return _fn(*a, **k)

                    table[key] = counted
        layer = layer.env


def run_replay(stack: Any, replay: ImageReplayVectorEnv) -> list[tuple]:
    """Drive ``stack`` through the replay (masked resets where it reset)."""
    out: list[tuple] = []
    while replay.next_kind is not None:
        if replay.next_kind == "reset":
            mask = replay._calls[replay.position][2]
            options = None if mask is None else {"reset_mask": mask}
            obs, info = stack.reset(seed=0, options=options)
            out.append(("reset", obs, info))
        else:
            out.append(("step", *stack.step(replay.action_space.sample())))
    return out
