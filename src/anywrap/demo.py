"""``anywrap demo``: CleanRL's six-wrapper stack on a JAX and a PyTorch vector env,
and an HTML report of an episode.

Runs the same ``anywrap.vector`` stack (RecordEpisodeStatistics, ClipAction,
NormalizeObservation, TransformObservation, NormalizeReward, TransformReward)
over Gymnasium's JAX ``phys2d/Pendulum-v0`` vector env and over a batched
PyTorch Pendulum, with random actions, and prints the episode returns and
lengths seen and the steps per second of each. The arrays never leave their
library.

Then it records one ``Pendulum-v1`` episode (``rgb_array`` frames, an
energy-pumping swing-up controller) with ``anywrap.RecordHTML``, and, where
``ale-py`` is installed, 300 steps of Atari Breakout, and prints the paths of
the ``.html`` reports.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import anywrap
from anywrap.xp import to_numpy

__all__ = [
    "cleanrl_stack",
    "main",
    "run_stack",
    "swing_up",
    "torch_pendulum_vector_env",
    "write_reports",
]

# The demo's stack and PyTorch env, which the benchmarks (benchmarks/ in a checkout) and
# the tests use too. Torch is imported inside the factory: importing this module is cheap.

MAX_STEPS = 200
"""Pendulum's time limit (Gymnasium's ``max_episode_steps``)."""


def cleanrl_stack(
    env: Any,
    wrappers: ModuleType,
    clip: Callable[[Any, float, float], Any],
    *,
    clip_action: bool = True,
    episodes: bool = True,
) -> Any:
    """CleanRL's continuous-control stack, built from the wrapper classes of ``wrappers``.

    RecordEpisodeStatistics, ClipAction, NormalizeObservation,
    TransformObservation(clip to [-10, 10]), NormalizeReward(gamma=0.99),
    TransformReward(clip to [-10, 10]).

    Args:
        env: A Gymnasium env or vector env.
        wrappers: A module with Gymnasium's wrapper names.
        clip: ``clip(x, low, high)`` for the env's array library.
        clip_action: Whether ClipAction is in the stack (not for Discrete actions).
        episodes: Whether RecordEpisodeStatistics is in the stack.
    """
    if episodes:
        env = wrappers.RecordEpisodeStatistics(env)
    if clip_action:
        env = wrappers.ClipAction(env)
    env = wrappers.NormalizeObservation(env)
    env = wrappers.TransformObservation(env, lambda o: clip(o, -10.0, 10.0), env.observation_space)
    env = wrappers.NormalizeReward(env, gamma=0.99)
    return wrappers.TransformReward(env, lambda r: clip(r, -10.0, 10.0))


class _PendulumCore:
    """Batched Pendulum-v1 dynamics over torch tensors (Gymnasium's constants)."""

    def __init__(self, num_envs: int, device: Any, seed: int = 0) -> None:
        import torch

        self.torch = torch
        self.n = num_envs
        self.device = torch.device(device)
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(seed)
        self.th = torch.zeros(num_envs, device=self.device)
        self.thdot = torch.zeros(num_envs, device=self.device)
        self.t = torch.zeros(num_envs, dtype=torch.int32, device=self.device)

    def seed(self, seed: int) -> None:
        self.gen.manual_seed(seed)

    def _uniform(self, low: float, high: float) -> Any:
        u = self.torch.rand(self.n, generator=self.gen, device=self.device)
        return low + (high - low) * u

    def reset_rows(self, mask: Any | None) -> None:
        """Draw fresh states for the rows in ``mask`` (all rows when None), without a sync."""
        th, thdot = self._uniform(-math.pi, math.pi), self._uniform(-1.0, 1.0)
        zero = self.torch.zeros_like(self.t)
        if mask is None:
            self.th, self.thdot, self.t = th, thdot, zero
        else:
            self.th = self.torch.where(mask, th, self.th)
            self.thdot = self.torch.where(mask, thdot, self.thdot)
            self.t = self.torch.where(mask, zero, self.t)

    def obs(self) -> Any:
        torch = self.torch
        return torch.stack([torch.cos(self.th), torch.sin(self.th), self.thdot], dim=-1)

    def step(self, action: Any) -> tuple[Any, Any]:
        """Advance every row; returns ``(reward, truncated)``."""
        torch = self.torch
        u = torch.clamp(action.reshape(self.n), -2.0, 2.0)
        th, thdot = self.th, self.thdot
        norm_th = torch.remainder(th + math.pi, 2 * math.pi) - math.pi
        cost = norm_th**2 + 0.1 * thdot**2 + 0.001 * u**2
        thdot = torch.clamp(thdot + (3 * 10.0 / 2 * torch.sin(th) + 3.0 * u) * 0.05, -8.0, 8.0)
        self.th, self.thdot, self.t = th + thdot * 0.05, thdot, self.t + 1
        return -cost, self.t >= MAX_STEPS


def torch_pendulum_vector_env(num_envs: int, device: Any = "cpu") -> Any:
    """A Gymnasium ``VectorEnv`` of ``num_envs`` Pendulums in pure PyTorch.

    Observations ``(num_envs, 3)`` float32, rewards ``(num_envs,)`` float32,
    ``terminated`` / ``truncated`` bool tensors, all on ``device``. Episodes
    are truncated after 200 steps; autoreset is NEXT_STEP, done with
    ``torch.where``, so a step never syncs with the host.
    """
    import torch

    class TorchPendulumVectorEnv(VectorEnv):
        metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

        def __init__(self) -> None:
            self.num_envs = num_envs
            self.core = _PendulumCore(num_envs, device)
            high = np.array([1.0, 1.0, 8.0], dtype=np.float32)
            self.single_observation_space = gym.spaces.Box(-high, high, dtype=np.float32)
            self.single_action_space = gym.spaces.Box(-2.0, 2.0, (1,), dtype=np.float32)
            self.observation_space = batch_space(self.single_observation_space, num_envs)
            self.action_space = batch_space(self.single_action_space, num_envs)
            self._done = torch.zeros(num_envs, dtype=torch.bool, device=self.core.device)

        def reset(self, *, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
            if seed is not None:
                self.core.seed(int(seed) if not isinstance(seed, list) else int(seed[0]))
            self.core.reset_rows(None)
            self._done = torch.zeros_like(self._done)
            return self.core.obs(), {}

        def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
            done = self._done
            reward, truncated = self.core.step(actions)
            self.core.reset_rows(done)  # NEXT_STEP: rows done last step start afresh
            reward = torch.where(done, torch.zeros_like(reward), reward)
            truncated = truncated & ~done
            terminated = torch.zeros_like(truncated)
            self._done = truncated
            return self.core.obs(), reward, terminated, truncated, {}

    return TorchPendulumVectorEnv()


def run_stack(
    name: str, envs: VectorEnv, sample: Callable[[], Any], steps: int, progress: Any
) -> dict[str, Any]:
    """Step ``envs`` ``steps`` times with ``sample()`` actions; collect episode stats."""
    envs.reset(seed=0)
    reports: list[tuple[Any, Any, Any]] = []
    for _ in range(3):  # warm-up (compilation on JAX and PyTorch)
        envs.step(sample())
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, _, _, info = envs.step(sample())
        if "episode" in info:  # device arrays: keep them, read once at the end
            reports.append((info["episode"]["r"], info["episode"]["l"], info["_episode"]))
        progress.update(1)
    _block(obs)
    elapsed = time.perf_counter() - start
    # Returns and lengths of the same episodes: those that ended in the timed loop.
    done = [to_numpy(m) for _, _, m in reports]
    returns = np.concatenate([to_numpy(r)[d] for (r, _, _), d in zip(reports, done)] or [[]])
    lengths = np.concatenate([to_numpy(n)[d] for (_, n, _), d in zip(reports, done)] or [[]])
    return {
        "name": name,
        "library": type(obs).__module__.split(".")[0].replace("jaxlib", "jax"),
        "episodes": int(_layer(envs, "episode_count")),
        "mean_return": float(returns.mean()) if returns.size else float("nan"),
        "mean_length": float(lengths.mean()) if lengths.size else float("nan"),
        "steps_per_s": steps * envs.num_envs / elapsed,
    }


def _block(x: Any) -> None:
    if hasattr(x, "block_until_ready"):
        x.block_until_ready()


def _layer(env: Any, attr: str) -> Any:
    while not hasattr(env, attr):
        env = env.env
    return getattr(env, attr)


def swing_up(obs: np.ndarray) -> np.ndarray:
    """A Pendulum-v1 controller: pump energy until near the top, then hold it there."""
    c, s, w = (float(v) for v in obs)
    if c > 0.85:  # near upright: a PD controller on the angle
        u = -(12.0 * np.arctan2(s, c) + 2.5 * w)
    elif 0.5 * w * w + 15.0 * c < 15.0:  # below the energy of the upright rest
        u = 2.0 if w >= 0 else -2.0
    else:
        u = -0.5 if w >= 0 else 0.5
    return np.array([np.clip(u, -2.0, 2.0)], dtype=np.float32)


def _replace_own_reports(folder: str, prefix: str) -> None:
    """Remove the reports an earlier demo wrote under ``prefix`` (RecordHTML would warn
    that it overwrites them; they are the demo's own)."""
    for old in Path(folder).glob(f"{prefix}-*.html"):
        old.unlink()


def write_reports(folder: str, atari: bool = True) -> list[Any]:
    """Record a Pendulum-v1 episode (and Breakout where ale-py is installed); the paths.
    The reports of an earlier run into ``folder`` are replaced."""
    # Frames are drawn off screen (rgb_array): SDL needs no display, and without one it
    # prints a harmless "XDG_RUNTIME_DIR is invalid or not set" unless told so.
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    paths = []
    env = gym.make("Pendulum-v1", render_mode="rgb_array")
    env = anywrap.RecordEpisodeStatistics(env)
    _replace_own_reports(folder, "pendulum")
    env = anywrap.RecordHTML(env, folder, name_prefix="pendulum")
    obs, _ = env.reset(seed=3)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(swing_up(obs))
        done = bool(terminated or truncated)
    env.close()
    paths += env.report_paths
    if atari:
        try:
            import ale_py
        except ImportError:
            return paths
        gym.register_envs(ale_py)
        aenv = gym.make("ALE/Breakout-v5", render_mode="rgb_array")
        _replace_own_reports(folder, "breakout")
        aenv = anywrap.RecordHTML(aenv, folder, name_prefix="breakout", report_length=300)
        aenv.reset(seed=0)
        aenv.action_space.seed(0)
        for _ in range(300):
            _, _, terminated, truncated, _ = aenv.step(aenv.action_space.sample())
            if terminated or truncated:
                break
        aenv.close()
        paths += aenv.report_paths
    return paths


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``anywrap demo``."""
    parser = argparse.ArgumentParser(
        prog="anywrap demo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--num-envs",
        type=int,
        default=256,
        metavar="N",
        help="sub-envs in each vector env (default: %(default)s)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=600,
        metavar="T",
        help="vector steps timed on each backend, each stepping every sub-env (default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--torch-device",
        default="cpu",
        metavar="DEVICE",
        help="where the PyTorch env and its statistics live, e.g. cuda:0 (default: %(default)s)",
    )
    parser.add_argument(
        "--report-dir",
        default="anywrap-demo-reports",
        metavar="DIR",
        help="where the HTML reports go (default: %(default)s)",
    )
    parser.add_argument("--no-report", action="store_true", help="skip the HTML reports")
    parser.add_argument("--report-only", action="store_true", help="only write the HTML reports")
    args = parser.parse_args(argv)
    problem = _check(args)
    if problem:
        print(f"anywrap demo: {problem}", file=sys.stderr)
        return 2
    if args.report_only:
        return _reports(args.report_dir)

    from tqdm.auto import tqdm

    rows = []
    with tqdm(total=2 * args.steps, desc="anywrap demo", unit="vector step") as bar:
        try:
            import jax
            import jax.numpy as jnp

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # phys2d's missing autoreset metadata
                jenvs = gym.make_vec("phys2d/Pendulum-v0", num_envs=args.num_envs)
            keys = iter(jax.random.split(jax.random.key(0), args.steps + 10))
            jstack = cleanrl_stack(jenvs, anywrap.vector, jnp.clip)
            rows.append(
                run_stack(
                    "phys2d/Pendulum-v0 (JAX)",
                    jstack,
                    lambda: jax.random.uniform(next(keys), (args.num_envs, 1), minval=-3, maxval=3),
                    args.steps,
                    bar,
                )
            )
        except ImportError as e:
            bar.write(f"JAX part skipped: {e} (pip install 'anywrap[jax]')")
        try:
            import torch

            # Compile PyTorch's transforms in the warm-up, as JAX does, not in the timed
            # loop (unless ANYWRAP_TORCH_COMPILE=0 said no); the bar says so meanwhile.
            anywrap.xp.set_compile(anywrap.xp.switch.compile_setting(), after_calls=2)
            anywrap.xp.switch.add_listener(_compiling(bar))
            warnings.filterwarnings("ignore", category=anywrap.xp.switch.CompileNotice)
            tenvs = torch_pendulum_vector_env(args.num_envs, args.torch_device)
            tstack = cleanrl_stack(tenvs, anywrap.vector, torch.clamp)
            gen = torch.Generator(device=args.torch_device).manual_seed(0)
            rows.append(
                run_stack(
                    f"Pendulum (PyTorch, {args.torch_device})",
                    tstack,
                    lambda: (
                        torch.rand((args.num_envs, 1), generator=gen, device=args.torch_device) * 6
                        - 3
                    ),
                    args.steps,
                    bar,
                )
            )
        except ImportError as e:
            bar.write(f"PyTorch part skipped: {e} (pip install 'anywrap[torch]')")
    print()
    header = (
        f"{'environment':32} {'arrays':6} {'episodes':>8} {'mean return':>12} "
        f"{'mean length':>11} {'env steps/s':>12}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['name']:32} {r['library']:6} {r['episodes']:8d} {r['mean_return']:12.1f} "
            f"{r['mean_length']:11.1f} {r['steps_per_s']:12.0f}"
        )
    print(
        f"\n{args.num_envs} envs x {args.steps} vector steps on each backend, random actions, "
        "six wrappers; env steps/s counts every sub-env's step. The rows time two different "
        "envs: Gymnasium's phys2d Pendulum, a functional env that its vector adapter steps "
        "env by env, and a batched pure-PyTorch Pendulum; their speeds compare the envs, "
        "not the wrappers (the benchmarks B3 and B5 time the wrappers beside each bare env)."
    )
    compiled = [r for r in anywrap.xp.compile_log() if r.compiled]
    if compiled:
        seconds = sum(r.seconds for r in compiled)
        print(
            f"PyTorch compiled {len(compiled)} transforms in the warm-up, {seconds:.1f} s in "
            "all (untimed; once per shape, and cheaper from TorchInductor's cache next time; "
            "ANYWRAP_TORCH_COMPILE=0 turns it off)."
        )
    if not rows:
        return 1
    return 0 if args.no_report else _reports(args.report_dir)


def _compiling(bar: Any) -> Callable[[str, str, str], None]:
    """A compile listener that says on the progress bar what is compiling."""

    def listener(event: str, function: str, signature: str) -> None:
        text = f"compiling {function} for PyTorch (once)" if event == "start" else ""
        bar.set_postfix_str(text, refresh=True)

    return listener


def _check(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, before any work starts (``None``: nothing)."""
    for name in ("num_envs", "steps"):
        if getattr(args, name) < 1:
            flag = "--" + name.replace("_", "-")
            return f"{flag} must be at least 1, got {getattr(args, name)}"
    if args.report_only:
        return None
    try:
        import numpy as np

        anywrap.xp.to_library(np.zeros(0), "torch", args.torch_device)  # refuses a bad device
    except ImportError:
        return None  # no PyTorch: its part is skipped with a note
    except ValueError as e:
        if "unknown array library" in str(e):
            return None
        return f"--torch-device {args.torch_device}: {e}"
    return None


def _reports(folder: str) -> int:
    try:
        paths = write_reports(folder)
    except ImportError as e:  # Pillow or pygame missing
        print(f"\nHTML report skipped: {e} (pip install '.[record]' pygame, from a checkout)")
        return 1
    print("\nHTML reports (open in a browser; they work offline):")
    for p in paths:
        print(f"  {p}  ({p.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
