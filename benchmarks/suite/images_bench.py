"""B7: the Atari-style image pipeline, anywrap against Gymnasium, side by side.

The pipeline: ``num_envs`` RGB frames (210x160x3 uint8) per step ->
grayscale -> resize to 84x84 -> stack 4, i.e. 4x84x84 out per env.

* **Gymnasium**: its only way to stack frames of a vector env, a
  ``SyncVectorEnv`` whose sub-envs each carry ``GrayscaleObservation``,
  ``ResizeObservation`` (OpenCV's ``INTER_AREA``) and
  ``FrameStackObservation``, on NumPy.
* **anywrap**: ``anywrap.vector`` ``GrayscaleObservation``,
  ``ResizeObservation`` and ``FrameStackObservation`` over one vector env,
  on JAX (each wrapper one jitted call), PyTorch and NumPy.

The image source is cheap on purpose, so that the wrappers' cost is what is
measured: a vector env (or, for Gymnasium, sub-envs) that replays two
pre-made batches of frames, already in the target library and on its
device. Each side's bare source is timed too, and subtracted for the
"wrapper cost" figures. The cases run in interleaved rounds
(:func:`benchmarks.suite.harness.interleave`), and the figures are medians.

Frame stack depth: the stack alone over 84x84 frames at depth 4 and 16,
per backend, full step (state update and stacked output) and state update
alone (one frame per env written into the ring), and the bytes per env
the buffer holds.

Run ``python -m benchmarks.suite.images_bench [--envs 256] [--steps 10] [--reps 5]
[--torch-threads N] [--json FILE]``.

Example:
    >>> from benchmarks.suite.images_bench import run
    >>> out = run(num_envs=2, steps=1, reps=1, backends=("numpy",), depths=(2,))
    >>> sorted(out["pipeline"])
    ['anywrap-numpy', 'bare-numpy', 'gymnasium', 'gymnasium-bare']
    >>> out["bytes_per_env"]["2"] == 2 * 84 * 84 + 84 * 84 / 2
    True
"""

from __future__ import annotations

import argparse
import json
import platform
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import anywrap
from anywrap.transforms import frame_stack_observation as fr
from benchmarks.suite.harness import Case, Failure, Timing, interleave

__all__ = ["main", "run"]

FRAME = (210, 160, 3)
OUT = (84, 84)
STACK = 4
TARGET = 3.0


# ------------------------------------------------------------ image sources
def _frames(num_envs: int, k: int = 2, shape: tuple[int, ...] = FRAME) -> np.ndarray:
    """``k`` batches of Atari-like frames: few colours, sharp edges."""
    rng = np.random.default_rng(0)
    palette = rng.integers(0, 256, (16, shape[-1] if len(shape) == 3 else 1), dtype=np.uint8)
    h, w = shape[:2]
    y, x = np.mgrid[0:h, 0:w]
    out = np.empty((k, num_envs, *shape), np.uint8)
    for t in range(k):
        for n in range(num_envs):
            idx = ((x // 8 + y // 6 + n + t) % 7 + (x * (n + 1) // 40) % 9) % 16
            img = palette[idx]
            out[t, n] = img if len(shape) == 3 else img[..., 0]
    return out


class ReplayFrames(gym.vector.VectorEnv):
    """A NEXT_STEP vector env that replays pre-made frame batches of one library."""

    def __init__(self, bank: Any, num_envs: int, xp: Any, shape: tuple[int, ...]) -> None:
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Box(0, 255, shape, np.uint8)
        self.single_action_space = gym.spaces.Discrete(2)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        self._bank = [bank[i] for i in range(bank.shape[0])]
        self._reward = xp.zeros((num_envs,))
        self._flag = xp.zeros((num_envs,), dtype=xp.bool)
        self._t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self._t = 0
        return self._bank[0], {}

    def step(self, actions: Any) -> Any:
        self._t += 1
        obs = self._bank[self._t % len(self._bank)]
        return obs, self._reward, self._flag, self._flag, {}


class _ReplayOne(gym.Env):
    """One sub-env of Gymnasium's side: replays its own pre-made frames (NumPy)."""

    def __init__(self, frames: np.ndarray) -> None:
        self.observation_space = gym.spaces.Box(0, 255, frames.shape[1:], np.uint8)
        self.action_space = gym.spaces.Discrete(2)
        self._frames, self._t = frames, 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self._t = 0
        return self._frames[0], {}

    def step(self, action: Any) -> Any:
        self._t += 1
        return self._frames[self._t % len(self._frames)], 0.0, False, False, {}


# ---------------------------------------------------------------- backends
def _library(name: str) -> tuple[Any, Callable[[np.ndarray], Any], Callable[[Any], Any]]:
    """``(xp, to_library, block)`` for a backend name."""
    if name == "jax":
        import jax
        import jax.numpy as jnp

        return jnp, jnp.asarray, jax.block_until_ready
    if name == "torch":
        import torch

        from anywrap.xp import namespace

        xp = namespace(torch.zeros(1))
        return xp, lambda a: torch.from_numpy(np.array(a)), lambda x: x
    return np, np.asarray, lambda x: x


def _pipeline(env: Any) -> Any:
    env = anywrap.vector.GrayscaleObservation(env)
    env = anywrap.vector.ResizeObservation(env, OUT)
    return anywrap.vector.FrameStackObservation(env, STACK)


def _stepper(env: Any, steps: int, block: Callable[[Any], Any]) -> Callable[[], Any]:
    actions = np.zeros(env.num_envs, np.int64)

    def run() -> Any:
        obs = None
        for _ in range(steps):
            obs = env.step(actions)[0]
        return block(obs)

    return run


def _pipeline_cases(
    num_envs: int, steps: int, backends: Sequence[str], bank: np.ndarray
) -> list[Case]:
    def bare(n: int) -> gym.Env:
        return _ReplayOne(bank[:, n])

    def full(n: int) -> gym.Env:
        env = gym.wrappers.GrayscaleObservation(_ReplayOne(bank[:, n]))
        return gym.wrappers.FrameStackObservation(gym.wrappers.ResizeObservation(env, OUT), STACK)

    cases: list[Case] = []
    for name, make in (("gymnasium", full), ("gymnasium-bare", bare)):
        vec = gym.vector.SyncVectorEnv([partial(make, n) for n in range(num_envs)])
        vec.reset(seed=0)
        cases.append(Case(name, _stepper(vec, steps, lambda x: x), steps=steps))
    for b in backends:
        xp, to_lib, block = _library(b)
        source = ReplayFrames(to_lib(bank), num_envs, xp, FRAME)
        stack = _pipeline(ReplayFrames(to_lib(bank), num_envs, xp, FRAME))
        for name, env in ((f"anywrap-{b}", stack), (f"bare-{b}", source)):
            env.reset(seed=0)
            cases.append(Case(name, _stepper(env, steps, block), steps=steps))
    return cases


def _depth_cases(
    num_envs: int, steps: int, backends: Sequence[str], depths: Sequence[int]
) -> tuple[list[Case], dict[str, float]]:
    bank = _frames(num_envs, 2, OUT)
    cases, sizes = [], {}
    for b in backends:
        xp, to_lib, block = _library(b)
        for d in depths:
            env = anywrap.vector.FrameStackObservation(
                ReplayFrames(to_lib(bank), num_envs, xp, OUT), d
            )
            env.reset(seed=0)
            sizes[str(d)] = env.bytes_per_env
            cases.append(Case(f"stack-{b}-{d}", _stepper(env, steps, block), steps=steps))
            # the state update alone: one frame per env written into the ring
            state = fr.init_frame_stack(num_envs, d, OUT, xp=xp, dtype=xp.uint8)
            frames = [to_lib(bank[i]) for i in range(2)]
            state = fr.reset_frame_stack(state, frames[0], pad_with_first=True)[0]
            update = anywrap.xp.Compiled(fr.append_frame, donate=True)
            holder = {"s": update(state, frames[1])}

            def run(
                holder: dict[str, Any] = holder,
                update: Any = update,
                frames: list[Any] = frames,
                block: Any = block,
            ) -> Any:
                for t in range(steps):
                    holder["s"] = update(holder["s"], frames[t % 2])
                return block(holder["s"].frames)

            cases.append(Case(f"update-{b}-{d}", run, steps=steps))
    return cases, sizes


# -------------------------------------------------------------------- run
def run(
    num_envs: int = 256,
    steps: int = 10,
    reps: int = 5,
    *,
    warmup: int = 1,
    backends: Sequence[str] = ("jax", "torch", "numpy"),
    depths: Sequence[int] = (4, 16),
    on_block: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Time the pipeline and the frame stack's depth, all cases interleaved.

    Returns:
        A JSON-ready dict: per case ``step_ms`` (median per vector step),
        ``env_steps_per_s`` and ``spread``; ``speedup`` (throughput over
        Gymnasium's) and ``wrapper_ms`` (step minus bare source) per backend;
        the frame stack's ``depth`` timings and ``bytes_per_env`` per depth.
    """
    from anywrap import xp

    bank = _frames(num_envs)
    cases = _pipeline_cases(num_envs, steps, backends, bank)
    depth_cases, sizes = _depth_cases(num_envs, steps, backends, depths)
    # PyTorch's transforms compile inside the untimed warm-up, as a long run's would.
    enabled, after = xp.compile_enabled(), xp.switch.compile_after_calls()
    xp.set_compile(enabled, after_calls=min(after, max(1, steps // 2)))
    try:
        timings = interleave([*cases, *depth_cases], reps=reps, warmup=warmup, on_block=on_block)
    finally:
        xp.set_compile(enabled, after_calls=after)

    def figure(t: Timing | Failure) -> dict[str, Any]:
        if isinstance(t, Failure):
            return {"error": t.error}
        return {
            "step_ms": t.median * 1e3,
            "env_steps_per_s": num_envs / t.median,
            "spread": t.spread,
        }

    pipeline = {c.name: figure(timings[c.name]) for c in cases}
    gym_t = timings["gymnasium"]
    speedup, wrapper = {}, {}
    wrapper["gymnasium"] = _minus(timings["gymnasium"], timings["gymnasium-bare"])
    for b in backends:
        t = timings[f"anywrap-{b}"]
        if isinstance(t, Timing) and isinstance(gym_t, Timing):
            speedup[b] = gym_t.median / t.median
        wrapper[b] = _minus(t, timings[f"bare-{b}"])
    depth: dict[str, Any] = {}
    for b in backends:
        row: dict[str, Any] = {}
        for d in depths:
            for kind in ("stack", "update"):
                t = timings[f"{kind}-{b}-{d}"]
                row[f"{kind}_ms_depth{d}"] = t.median * 1e3 if isinstance(t, Timing) else None
        if len(depths) >= 2:
            lo, hi = min(depths), max(depths)
            for kind in ("stack", "update"):
                a, z = row[f"{kind}_ms_depth{lo}"], row[f"{kind}_ms_depth{hi}"]
                row[f"{kind}_ratio_{hi}_over_{lo}"] = z / a if a and z else None
        depth[b] = row
    return {
        "benchmark": "B7",
        "num_envs": num_envs,
        "steps": steps,
        "reps": reps,
        "frame_in": list(FRAME),
        "frame_out": [STACK, *OUT],
        "pipeline": pipeline,
        "speedup": speedup,
        "wrapper_ms": wrapper,
        "target": TARGET,
        "met": {b: s >= TARGET for b, s in speedup.items()},
        "depth": depth,
        "bytes_per_env": sizes,
        "machine": platform.platform(),
        "torch_threads": _torch_threads(backends),
        "torch_compiled": enabled,
    }


def _torch_threads(backends: Sequence[str]) -> int | None:
    if "torch" not in backends:
        return None
    import torch

    return int(torch.get_num_threads())


def _minus(a: Timing | Failure, b: Timing | Failure) -> float | None:
    if isinstance(a, Timing) and isinstance(b, Timing):
        return (a.median - b.median) * 1e3
    return None


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Command line: run and print the figures (and write them as JSON with ``--json``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--backends", default="jax,torch,numpy")
    p.add_argument(
        "--torch-threads", type=int, default=None, help="torch.set_num_threads (default: torch's)"
    )
    p.add_argument("--json", default=None, help="write the results to this file")
    a = p.parse_args(argv)
    if a.torch_threads is not None:
        import torch

        torch.set_num_threads(a.torch_threads)
    out = run(a.envs, a.steps, a.reps, backends=tuple(a.backends.split(",")))
    for name, f in out["pipeline"].items():
        if "error" in f:
            print(f"{name:16s} failed: {f['error']}")
        else:
            print(
                f"{name:16s} {f['step_ms']:9.2f} ms/step  {f['env_steps_per_s']:10.0f} env steps/s"
            )
    for b, s in out["speedup"].items():
        print(f"{b}: {s:.2f}x Gymnasium's throughput (target {TARGET}x)")
    for b, row in out["depth"].items():
        print(b, {k: round(v, 3) for k, v in row.items() if v is not None})
    print("bytes per env:", out["bytes_per_env"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)
    return out


if __name__ == "__main__":
    main()
