"""What the CleanRL stack costs a device: ATen ops and host time per step, side by side.

CleanRL's six wrappers (RecordEpisodeStatistics, ClipAction,
NormalizeObservation, TransformObservation(clamp), NormalizeReward,
TransformReward(clamp)) over a batched Pendulum written in pure PyTorch, N
envs (default 4096), against:

* the bare env;
* a hand-written normaliser, written below (:class:`HandWritten`): the
  observation mean and variance merged by Chan's formula over
  ``torch.var_mean``, the discounted return scaled by its running variance,
  three clamps, no episode statistics: about what a careful user writes;
* anywrap's stack, compile off (eager) and on (compiled before the timed
  blocks: the five wrappers after the env's step are one fused program);
* anywrap's stack without RecordEpisodeStatistics, eager: the hand-written
  normaliser's work and no more, so the one like-for-like row (the episode
  statistics alone cost about what the whole hand-written normaliser does);
* TorchRL's closest stack over the same dynamics as an ``EnvBase``:
  ``RewardSum`` (episode returns), ``ClipTransform`` on the action,
  ``VecNorm`` on the observation and the reward, ``ClipTransform`` on both.
  It is not the same arithmetic: TorchRL has no normaliser of the reward by the
  running variance of the discounted return (``VecNorm`` of ``reward``
  standardises the reward itself, with an exponential decay), and its episode
  statistics are a running sum only (no lengths, times or recent-episode
  queue). Its own bare ``EnvBase`` is its reference.

Two figures per case:

* **ATen ops per step**: every ``aten::`` event that ``torch.profiler`` records
  over a block of steps, nested calls included (a ``clamp`` that calls
  ``clamp_out`` counts twice), divided by the steps; the most frequent names
  beside it: the issue's count, in which a cast is four calls (``to``, ``_to_copy``,
  ``empty_strided``, ``copy_``) and one kernel.
* **Kernels per step** (eager cases): the ATen ops that do work and have no such op
  below them (:func:`count_kernels`): a cast's ``to``, ``_to_copy``, ``empty_strided``
  and ``copy_`` are one kernel. On a GPU each is a launch; the compiled programs' own
  kernels are no ATen ops, so the compiled case has no count.
* **Added host time per step**: the cases step in interleaved rounds (each
  round runs a block of every case, a block is one whole episode of 200 steps
  so that the autoreset at episode ends is in it, as in a user's loop); the
  figure is the median over rounds of (case - its bare env), per step.
* **The env's own step inside the case** (PyTorch cases built here): the time the
  batched Pendulum's ``step`` takes within the case's step, median over rounds. On a
  CPU, a stack's temporaries push the env's arrays out of the core's cache between
  steps, so part of a stack's added time is the env stepping slower; the difference
  from the bare env's figure is that part (a GPU's kernels read device memory either
  way).
* **Inside the compiled program** (the compiled case): the time a step spends within
  the callables that ``torch.compile`` returned, median over rounds: PyTorch's own
  runtime (TorchDynamo's frame and guards, AOTAutograd's and TorchInductor's wrappers,
  the outputs' allocations) and the kernels (on CUDA, their launches: the kernels run
  asynchronously). The rest of the case's added time is anywrap's Python around the
  program, the clip before the env's step and the env stepping slower.

    python benchmarks/device_ops.py                    # N=4096, about 2 minutes on 2 cores
    python benchmarks/device_ops.py --envs 256 --rounds 5 --json out.json
    python benchmarks/device_ops.py --no-compile       # leave the compiled case out
    python benchmarks/device_ops.py --jax              # the same stack on JAX

``--jax``: the stack over Gymnasium's ``phys2d/Pendulum-v0`` (JAX arrays, the
env resets itself) beside a hand-written normaliser in one ``jax.jit`` program
(and a clip of the action), counting the XLA programs dispatched per step
(``jax.profiler``'s executions: every jitted call and every eager op), not ATen
ops. JAX has no eager mode to compare: anywrap's transforms are always jitted.

Importable: :func:`measure` returns the figures as a dict (what ``--json`` writes).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

EPISODE = 200
"""Pendulum's time limit: a block is one episode, so it holds one autoreset."""

LIKE_FOR_LIKE = "anywrap eager, no episode statistics"
"""The stack without RecordEpisodeStatistics: the hand-written normaliser's work, no more."""


def _envs() -> Any:
    """The shared benchmark envs: the demo's CleanRL stack and torch Pendulums, and
    the suite's TorchRL Pendulum on the same dynamics."""
    from types import SimpleNamespace

    from anywrap import demo

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout
    from benchmarks.suite.envs import torchrl_pendulum_env

    return SimpleNamespace(
        cleanrl_stack=demo.cleanrl_stack,
        torch_pendulum_vector_env=demo.torch_pendulum_vector_env,
        torchrl_pendulum_env=torchrl_pendulum_env,
    )


class HandWritten:
    """A careful hand-written normaliser over a torch vector env: what the stack is
    measured against. Observation moments by Chan's merge over ``torch.var_mean``
    (Gymnasium's initial count 1e-4), the discounted return ``G = gamma * G * (1 -
    terminated) + r`` and its running variance, the reward divided by its std; clamps
    on the action, the normalised observation and the scaled reward."""

    def __init__(self, env: Any, gamma: float = 0.99, epsilon: float = 1e-8) -> None:
        self.env, self.gamma, self.epsilon = env, gamma, epsilon
        n, dev = env.num_envs, env.core.device
        shape = env.single_observation_space.shape
        self.mean = torch.zeros(shape, device=dev)
        self.var = torch.ones(shape, device=dev)
        self.count = 1e-4
        self.ret = torch.zeros(n, device=dev)
        self.ret_mean = torch.zeros((), dtype=torch.float64, device=dev)
        self.ret_var = torch.ones((), dtype=torch.float64, device=dev)
        self.ret_count = 1e-4

    @staticmethod
    def _merge(mean: Any, var: Any, count: float, x: Any) -> tuple[Any, Any, float]:
        b_var, b_mean = torch.var_mean(x, dim=0, correction=0)
        n = x.shape[0]
        total = count + n
        delta = b_mean - mean
        mean = mean + delta * (n / total)
        var = (var * count + b_var * n + delta.square() * (count * n / total)) / total
        return mean, var, total

    def _obs(self, obs: Any) -> Any:
        self.mean, self.var, self.count = self._merge(self.mean, self.var, self.count, obs)
        return ((obs - self.mean) / torch.sqrt(self.var + self.epsilon)).clamp(-10.0, 10.0)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._obs(obs), info

    def step(self, action: Any) -> tuple[Any, ...]:
        obs, reward, terminated, truncated, info = self.env.step(action.clamp(-2.0, 2.0))
        self.ret = self.ret * self.gamma * ~terminated + reward
        self.ret_mean, self.ret_var, self.ret_count = self._merge(
            self.ret_mean, self.ret_var, self.ret_count, self.ret.double()
        )
        scaled = (reward / torch.sqrt(self.ret_var + self.epsilon)).float().clamp(-10.0, 10.0)
        return self._obs(obs), scaled, terminated, truncated, info


def count_dispatches(block: Callable[[], Any], steps: int) -> float:
    """XLA programs executed per step while ``block`` runs ``steps`` steps, read from a
    ``jax.profiler`` trace (one ``ExecuteHelperOnSingleDevice`` event per execution)."""
    import glob
    import tempfile

    import jax
    from jax.profiler import ProfileData

    with tempfile.TemporaryDirectory() as d:
        jax.profiler.start_trace(d)
        try:
            block()
        finally:
            jax.profiler.stop_trace()
        (path,) = glob.glob(f"{d}/**/*.xplane.pb", recursive=True)
        data = ProfileData.from_file(path)
    runs = sum(
        1
        for plane in data.planes
        for line in plane.lines
        for ev in line.events
        if ev.name.endswith("ExecuteHelperOnSingleDevice")
    )
    return runs / steps


def _jax_hand_written(env: Any, gamma: float = 0.99, epsilon: float = 1e-8) -> Any:
    """:class:`HandWritten` for JAX arrays: the observation and return statistics in one
    ``jax.jit`` program a step, and one clip of the action."""
    import jax
    import jax.numpy as jnp

    def merge(mean: Any, var: Any, count: Any, x: Any) -> tuple[Any, Any, Any]:
        n = x.shape[0]
        b_mean, b_var = jnp.mean(x, axis=0), jnp.var(x, axis=0)
        total = count + n
        delta = b_mean - mean
        var = (var * count + b_var * n + jnp.square(delta) * (count * n / total)) / total
        return mean + delta * (n / total), var, total

    @jax.jit
    def post(state: Any, obs: Any, reward: Any, terminated: Any) -> Any:
        mean, var, count, ret, r_mean, r_var, r_count = state
        ret = ret * gamma * (1 - terminated) + reward
        r_mean, r_var, r_count = merge(r_mean, r_var, r_count, ret)
        mean, var, count = merge(mean, var, count, obs)
        obs = jnp.clip((obs - mean) / jnp.sqrt(var + epsilon), -10.0, 10.0)
        reward = jnp.clip(reward / jnp.sqrt(r_var + epsilon), -10.0, 10.0)
        return (mean, var, count, ret, r_mean, r_var, r_count), obs, reward

    shape, n = env.single_observation_space.shape, env.num_envs
    zero = jnp.zeros(())

    class Hand:
        def reset(self, **kwargs: Any) -> Any:
            self.state = (
                jnp.zeros(shape), jnp.ones(shape), zero + 1e-4,
                jnp.zeros(n), zero, zero + 1.0, zero + 1e-4,
            )  # fmt: skip
            return env.reset(**kwargs)

        def step(self, action: Any) -> Any:
            obs, reward, terminated, truncated, info = env.step(jnp.clip(action, -2.0, 2.0))
            self.state, obs, reward = post(self.state, obs, reward, terminated)
            return obs, reward, terminated, truncated, info

    return Hand()


def measure_jax(num_envs: int = 4096, *, rounds: int = 7) -> dict[str, Any]:
    """The JAX cases (see the module): dispatched programs and host time per step."""
    import gymnasium as gym
    import jax
    import jax.numpy as jnp
    import numpy as np

    import anywrap

    envs = _envs()
    host = np.random.default_rng(0).uniform(-2, 2, (EPISODE, num_envs, 1)).astype(np.float32)
    actions = [jnp.asarray(a) for a in host]

    def make() -> Any:
        return gym.make_vec("phys2d/Pendulum-v0", num_envs)

    cases = {
        "bare": make(),
        "hand-written": _jax_hand_written(make()),
        "anywrap": envs.cleanrl_stack(make(), anywrap.vector, jnp.clip),
    }

    def block(env: Any) -> Callable[[], None]:
        def run() -> None:
            for a in actions:
                out = env.step(a)
            jax.block_until_ready(out[:4])

        return run

    results: dict[str, dict[str, Any]] = {}
    for name, env in cases.items():
        env.reset(seed=0)
        block(env)()  # compile, one episode
        runs = count_dispatches(block(env), len(actions))
        results[name] = {"ops_per_step": runs, "top_ops": [], "reference": "bare"}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, env in cases.items():
            start = time.perf_counter()
            block(env)()
            times[name].append((time.perf_counter() - start) / len(actions))
    return _summarise(
        results,
        times,
        num_envs=num_envs,
        device=jax.devices()[0].platform,
        library=f"jax {jax.__version__}",
        threads=None,
        rounds=rounds,
        steps=len(actions),
        unit="XLA programs",
    )


def _torchrl_stack(n: int, device: Any) -> tuple[Any, Any] | None:
    """TorchRL's bare ``EnvBase`` and its closest stack (see the module), or None."""
    try:
        from torchrl.envs import ClipTransform, Compose, RewardSum, TransformedEnv, VecNorm
    except ImportError:
        return None
    envs = _envs()
    stack = TransformedEnv(
        envs.torchrl_pendulum_env(n, device),
        Compose(
            RewardSum(),
            ClipTransform(in_keys_inv=["action"], low=-2.0, high=2.0),
            VecNorm(in_keys=["observation", "reward"], new_api=True, decay=1.0),
            ClipTransform(in_keys=["observation", "reward"], low=-10.0, high=10.0),
        ),
    )
    return envs.torchrl_pendulum_env(n, device), stack


class _Case:
    """One case: how to reset it and run a block of steps; ``env_seconds``, the time its
    innermost env's ``step`` took since the last reset of the figure (None: not timed)."""

    env_seconds: float | None = None
    program_seconds: float | None = None  # time inside torch.compile's callables

    def __init__(
        self, name: str, reference: str, reset: Callable[[], Any], step: Callable[..., Any]
    ):
        self.name, self.reference, self.reset, self.step = name, reference, reset, step


def _time_inner_step(case: _Case, env: Any) -> None:
    """Time the ``step`` of the env at the bottom of ``env``'s ``.env`` chain into
    ``case.env_seconds`` (an attribute of that one instance; the class is untouched)."""
    while hasattr(env, "env"):
        env = env.env
    inner_step = env.step
    case.env_seconds = 0.0

    def step(action: Any) -> Any:
        start = time.perf_counter()
        out = inner_step(action)
        case.env_seconds += time.perf_counter() - start  # type: ignore[operator]
        return out

    env.step = step


class _TimedCompile:
    """While entered, ``torch.compile`` returns callables that add the seconds each call
    takes to ``case.program_seconds`` (the callables keep timing after the exit)."""

    def __init__(self, case: _Case) -> None:
        self.case, self.compile = case, torch.compile

    def __enter__(self) -> None:
        case, compile_ = self.case, self.compile
        case.program_seconds = 0.0

        def timed_compile(fn: Any, *args: Any, **kwargs: Any) -> Any:
            program = compile_(fn, *args, **kwargs)

            def call(*a: Any, **k: Any) -> Any:
                start = time.perf_counter()
                out = program(*a, **k)
                case.program_seconds += time.perf_counter() - start  # type: ignore[operator]
                return out

            return call

        torch.compile = timed_compile  # type: ignore[assignment]

    def __exit__(self, *exc: Any) -> None:
        torch.compile = self.compile


def _gym_case(
    name: str, env: Any, reference: str = "bare", compile_on: bool | None = None
) -> _Case:
    from anywrap import xp

    def reset() -> Any:
        if compile_on is not None:
            xp.set_compile(compile_on)
        return env.reset(seed=0)

    def step(action: Any) -> Any:
        return env.step(action)

    def block(actions: list[Any]) -> None:
        if compile_on is not None:
            xp.set_compile(compile_on)
        for a in actions:
            env.step(a)

    case = _Case(name, reference, reset, step)
    case.block = block  # type: ignore[attr-defined]
    _time_inner_step(case, env)
    return case


def _torchrl_case(name: str, env: Any) -> _Case:
    state: dict[str, Any] = {}

    def reset() -> Any:
        env.set_seed(0)
        state["td"] = env.reset()

    def block(actions: list[Any]) -> None:
        td = state["td"]
        for a in actions:
            td.set("action", a)
            _, td = env.step_and_maybe_reset(td)
        state["td"] = td

    case = _Case(name, "torchrl bare", reset, lambda a: None)
    case.block = block  # type: ignore[attr-defined]
    return case


# ATen ops that launch no kernel of their own: allocations, views, host reads, and the
# dispatchers whose work is an op below them (a cast's copy_, a factory's fill_).
NO_KERNEL = frozenset(
    "aten::" + name
    for name in (
        "empty empty_strided empty_like as_strided view reshape _reshape_alias _unsafe_view "
        "unsqueeze squeeze expand alias detach lift_fresh resolve_conj resolve_neg t "
        "transpose permute select slice flatten to _to_copy contiguous clone result_type "
        "item _local_scalar_dense is_nonzero scalar_tensor zeros zeros_like ones ones_like "
        "full full_like rand randn"
    ).split()
)


def count_kernels(events: list[Any]) -> int:
    """The kernels a device would launch for the profiler's ``events``: the ATen ops that do
    work (not in :data:`NO_KERNEL`) with no such op below them; a composite op (an
    ``add`` whose inputs a ``copy_`` casts first) counts its parts."""
    aten = [e for e in events if e.name.startswith("aten::")]
    composite = set()
    for e in aten:
        if e.name not in NO_KERNEL:
            parent = e.cpu_parent
            while parent is not None:
                composite.add(id(parent))
                parent = parent.cpu_parent
    return sum(1 for e in aten if e.name not in NO_KERNEL and id(e) not in composite)


def count_ops(case: _Case, actions: list[Any]) -> tuple[float, list[tuple[str, float]], float]:
    """ATen ops per step over ``actions`` (nested calls included), the top names, and the
    kernels per step (:func:`count_kernels`)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        case.block(actions)  # type: ignore[attr-defined]
    counts: collections.Counter[str] = collections.Counter()
    for ev in prof.key_averages():
        if ev.key.startswith("aten::"):
            counts[ev.key] += ev.count
    steps = len(actions)
    total = sum(counts.values()) / steps
    kernels = count_kernels(prof.events()) / steps
    return total, [(k, v / steps) for k, v in counts.most_common(12)], kernels


def measure(
    num_envs: int = 4096,
    *,
    device: str = "cpu",
    rounds: int = 7,
    compiled: bool = True,
    torchrl: bool = True,
    profile_steps: int = EPISODE,
) -> dict[str, Any]:
    """Every case's ATen ops and host time per step (see the module); a dict of figures."""
    import anywrap
    from anywrap import xp

    envs = _envs()
    torch.manual_seed(0)
    dev = torch.device(device)
    actions = [4.0 * torch.rand(num_envs, 1, device=dev) - 2.0 for _ in range(EPISODE)]
    clip = torch.clamp
    cases = [
        _gym_case("bare", envs.torch_pendulum_vector_env(num_envs, dev)),
        _gym_case("hand-written", HandWritten(envs.torch_pendulum_vector_env(num_envs, dev))),
        _gym_case(
            "anywrap eager",
            envs.cleanrl_stack(envs.torch_pendulum_vector_env(num_envs, dev), anywrap.vector, clip),
            compile_on=False,
        ),
        _gym_case(
            LIKE_FOR_LIKE,
            envs.cleanrl_stack(
                envs.torch_pendulum_vector_env(num_envs, dev), anywrap.vector, clip, episodes=False
            ),
            compile_on=False,
        ),
    ]
    compile_seconds = None
    previous = xp.set_compile(False)
    if compiled:
        stack = envs.cleanrl_stack(
            envs.torch_pendulum_vector_env(num_envs, dev), anywrap.vector, clip
        )
        case = _gym_case("anywrap compiled", stack, compile_on=True)
        xp.set_compile(True, after_calls=1)
        start = time.perf_counter()
        with warnings.catch_warnings(), _TimedCompile(case):
            warnings.simplefilter("ignore", xp.switch.CompileNotice)
            stack.reset(seed=0)
            for a in actions[:3]:
                stack.step(a)
        compile_seconds = time.perf_counter() - start
        cases.append(case)
    pair = _torchrl_stack(num_envs, dev) if torchrl else None
    if pair is not None:
        cases += [_torchrl_case("torchrl bare", pair[0]), _torchrl_case("torchrl stack", pair[1])]
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    results: dict[str, dict[str, Any]] = {}
    for c in cases:
        c.reset()
        c.block(actions)  # type: ignore[attr-defined]  # warm-up, one episode
        sync()
        ops, top, kernels = count_ops(c, actions[:profile_steps])
        results[c.name] = {"ops_per_step": ops, "top_ops": top, "reference": c.reference}
        if c.program_seconds is None:  # a compiled program's own kernels are no ATen ops
            results[c.name]["kernels_per_step"] = kernels

    times: dict[str, list[float]] = {c.name: [] for c in cases}
    env_times: dict[str, list[float]] = {c.name: [] for c in cases if c.env_seconds is not None}
    program_times: dict[str, list[float]] = {
        c.name: [] for c in cases if c.program_seconds is not None
    }
    for _ in range(rounds):
        for c in cases:
            sync()
            if c.env_seconds is not None:
                c.env_seconds = 0.0
            if c.program_seconds is not None:
                c.program_seconds = 0.0
            start = time.perf_counter()
            c.block(actions)  # type: ignore[attr-defined]
            sync()
            times[c.name].append((time.perf_counter() - start) / len(actions))
            if c.env_seconds is not None:
                env_times[c.name].append(c.env_seconds / len(actions))
            if c.program_seconds is not None:
                program_times[c.name].append(c.program_seconds / len(actions))
    xp.set_compile(previous, after_calls=xp.switch.AFTER_CALLS)

    return _summarise(
        results,
        times,
        env_times=env_times,
        program_times=program_times,
        num_envs=num_envs,
        device=str(dev),
        library=f"torch {torch.__version__}",
        threads=torch.get_num_threads(),
        rounds=rounds,
        steps=len(actions),
        unit="ATen ops",
        compile_seconds=compile_seconds,
    )


def _summarise(
    results: dict[str, dict[str, Any]],
    times: dict[str, list[float]],
    *,
    env_times: dict[str, list[float]] | None = None,
    program_times: dict[str, list[float]] | None = None,
    compile_seconds: float | None = None,
    **about: Any,
) -> dict[str, Any]:
    """Each case's median time, and what it adds over its reference and over the
    hand-written normaliser's additions; with ``env_times`` (the env's own step in each
    round), the env's median step and how much slower it is than in the reference, by the
    same statistic as the time added (the median over rounds of the difference); with
    ``program_times``, the median time a step spent inside the compiled programs."""

    def added(a: list[float], b: list[float]) -> float:
        return statistics.median(x - y for x, y in zip(a, b)) * 1e6

    env_times = env_times or {}
    for name, r in results.items():
        ref = r["reference"]
        r["us_per_step"] = statistics.median(times[name]) * 1e6
        if name in env_times:
            r["env_us_per_step"] = statistics.median(env_times[name]) * 1e6
        if name in (program_times or {}):
            r["program_us_per_step"] = statistics.median(program_times[name]) * 1e6
        if ref in results and ref != name:
            r["added_ops"] = r["ops_per_step"] - results[ref]["ops_per_step"]
            if "kernels_per_step" in r and "kernels_per_step" in results[ref]:
                r["added_kernels"] = r["kernels_per_step"] - results[ref]["kernels_per_step"]
            r["added_us"] = added(times[name], times[ref])
            if name in env_times and ref in env_times:
                r["env_slower_us"] = added(env_times[name], env_times[ref])
    hand = results["hand-written"]
    for name, r in results.items():
        if name not in ("bare", "hand-written", "torchrl bare") and hand.get("added_us"):
            r["ops_over_hand"] = r["added_ops"] / hand["added_ops"]
            if "added_kernels" in r and hand.get("added_kernels"):
                r["kernels_over_hand"] = r["added_kernels"] / hand["added_kernels"]
            r["time_over_hand"] = r["added_us"] / hand["added_us"]
            bare = results[r["reference"]]["us_per_step"]
            r["time_over_bare"] = r["us_per_step"] / bare
    return {**about, "compile_seconds": compile_seconds, "cases": results}


def table(figures: dict[str, Any]) -> str:
    """The figures as a Markdown table, and each case's most frequent ops."""
    threads = f", {figures['threads']} threads" if figures.get("threads") else ""
    lines = [
        f"N={figures['num_envs']} on {figures['device']}, {figures['library']}{threads}, "
        f"median of {figures['rounds']} rounds of {figures['steps']} steps",
        "",
        f"| case | {figures['unit']}/step | added | us/step | added us/step "
        "| x hand-written (ops, us) | x bare (us) | env's step inside, us (slower by) |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]

    def fmt(v: Any, spec: str = ".0f") -> str:
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)

    for name, r in figures["cases"].items():
        over = ""
        if "ops_over_hand" in r:
            over = f"{r['ops_over_hand']:.2f}x, {r['time_over_hand']:.2f}x"
        inside = fmt(r.get("env_us_per_step"))
        if r.get("env_slower_us") is not None:
            inside += f" ({r['env_slower_us']:+.0f})"
        lines.append(
            f"| {name} | {fmt(r['ops_per_step'])} | {fmt(r.get('added_ops'))} | "
            f"{fmt(r['us_per_step'])} | {fmt(r.get('added_us'))} | {over} | "
            f"{fmt(r.get('time_over_bare'), '.2f')} | {inside} |"
        )
    kernels = [
        f"{name} {r['kernels_per_step']:.0f}"
        + (f" (+{r['added_kernels']:.0f})" if r.get("added_kernels") is not None else "")
        + (f" {r['kernels_over_hand']:.2f}x" if "kernels_over_hand" in r else "")
        for name, r in figures["cases"].items()
        if r.get("kernels_per_step") is not None
    ]
    if kernels:
        lines.append("\nkernels a step (ATen ops doing work; eager cases): " + "; ".join(kernels))
    if figures.get("compile_seconds") is not None:
        lines.append(f"\ncompile (first steps, once): {figures['compile_seconds']:.1f} s")
    for name, r in figures["cases"].items():
        if r.get("program_us_per_step") is not None:
            lines.append(
                f"{name}: {r['program_us_per_step']:.0f} us a step inside torch.compile's "
                "programs (PyTorch's runtime and the kernels)"
            )
    lines.append("")
    for name, r in figures["cases"].items():
        if not r["top_ops"]:
            continue
        top = ", ".join(f"{k.removeprefix('aten::')} {v:.0f}" for k, v in r["top_ops"][:8])
        lines.append(f"{name}: {top}")
    return "\n".join(lines)


def plot(figures: dict[str, Any], path: str) -> None:
    """The table's added ops, kernels (where counted) and µs per step as bars, each case
    beside the hand-written normaliser, with the issue's targets (2x eager, 1.5x compiled)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = {k: v for k, v in figures["cases"].items() if v.get("added_ops") is not None}
    names = list(cases)
    hand = figures["cases"]["hand-written"]
    panels = [("added_ops", f"{figures['unit']} added per step")]
    if hand.get("added_kernels"):  # the eager cases' kernels (none for a compiled program)
        panels.append(("added_kernels", "kernels added per step (eager)"))
    panels.append(("added_us", "µs added per step (host)"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.6), sharey=True)
    for ax, (key, label) in zip(axes, panels):
        values = [cases[n].get(key) or 0.0 for n in names]
        ax.barh(names, values, color=["#888" if n == "hand-written" else "#3a7" for n in names])
        for i, n in enumerate(names):
            if cases[n].get(key) is None:  # a compiled program's kernels: not counted
                ax.text(0, i, " not counted", va="center", fontsize=8, color="#555")
        if key == "added_us":  # the part that is the env's own step, slowed (hatched)
            slower = [max(cases[n].get("env_slower_us") or 0.0, 0.0) for n in names]
            left = [v - w for v, w in zip(values, slower)]
            ax.barh(names, slower, left=left, color="none", edgecolor="#144", hatch="///", lw=0)
        for target, style in ((2.0, "--"), (1.5, ":")):
            ax.axvline(target * hand[key], color="#c33", linestyle=style, linewidth=1)
        ax.set_xlabel(label)
        ax.set_xlim(0, 1.08 * max(*values, 2.0 * hand[key]))
    axes[0].invert_yaxis()  # shared by the panels: once
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = [
        Line2D([], [], color="#c33", linestyle=style, linewidth=1) for style in ("--", ":")
    ]
    labels = ["2x hand-written (eager target)", "1.5x hand-written (compiled target)"]
    if any(c.get("env_slower_us") for c in cases.values()):
        handles.append(Patch(facecolor="none", edgecolor="#144", hatch="///", lw=0))
        labels.append("of which the env's own step, slowed")
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(
        f"CleanRL stack over Pendulum x{figures['num_envs']} on {figures['device']}, "
        f"{figures['library']}, median of {figures['rounds']} rounds",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))  # room for the legend below
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--threads", type=int, help="torch.set_num_threads (1 is steadier on a shared machine)"
    )
    parser.add_argument("--no-compile", action="store_true", help="leave the compiled case out")
    parser.add_argument("--no-torchrl", action="store_true", help="leave TorchRL's stack out")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--plot", help="also draw the table as bars into this PNG")
    parser.add_argument("--jax", action="store_true", help="the stack on JAX (see the module)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.jax:
        figures = measure_jax(args.envs, rounds=args.rounds)
    else:
        figures = measure(
            args.envs,
            device=args.device,
            rounds=args.rounds,
            compiled=not args.no_compile,
            torchrl=not args.no_torchrl,
        )
    print(table(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    if args.plot:
        plot(figures, args.plot)


if __name__ == "__main__":
    main()
