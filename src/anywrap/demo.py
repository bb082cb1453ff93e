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
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv

import anywrap
from anywrap.bench.envs import cleanrl_stack, torch_pendulum_vector_env
from anywrap.xp import to_numpy

__all__ = ["main", "run_stack", "swing_up", "write_reports"]


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
            anywrap.xp.set_compile(anywrap.xp.compile_enabled(), after_calls=2)
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
        "not the wrappers (anywrap bench B3 and B5 time the wrappers beside each bare env)."
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
