"""What each CleanRL wrapper adds to a NumPy step, anywrap against Gymnasium.

Three `SyncVectorEnv`s of Pendulum-v1 (16 sub-envs each), or with
``--single`` three Pendulum-v1 envs (reset, untimed, when an episode ends):
one bare, one under anywrap's wrapper, one under Gymnasium's. They step in turn, one step
each, with the same actions, and each step is timed on its own; a figure is
the median over the steps (after a warm-up) of a wrapped step minus the
median of a bare one. Stepping in turn puts a noisy stretch of a shared
machine on all three alike, and a median of single steps is steadier than a
mean over a block: this is how the README's per-wrapper figures for B2 were
measured.

    python benchmarks/wrapper_steps.py                  # about a minute
    python benchmarks/wrapper_steps.py --single         # one env: a few seconds
    python benchmarks/wrapper_steps.py NormalizeObservation --steps 2000
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import anywrap

WRAPPERS = ("RecordEpisodeStatistics", "ClipAction", "NormalizeObservation", "NormalizeReward")
NUM_ENVS = 16
WARMUP = 200


def make(single: bool) -> Any:
    if single:
        return gym.make("Pendulum-v1")
    return gym.make_vec("Pendulum-v1", num_envs=NUM_ENVS, vectorization_mode="sync")


def added_times(name: str, steps: int, seed: int = 0, single: bool = False) -> tuple[float, float]:
    """Median seconds that anywrap's and Gymnasium's ``name`` (vector, or single
    with ``single``) add to a step."""
    ours, theirs = (anywrap, gym.wrappers) if single else (anywrap.vector, gym.wrappers.vector)
    envs = {
        "bare": make(single),
        "anywrap": getattr(ours, name)(make(single)),
        "gymnasium": getattr(theirs, name)(make(single)),
    }
    space = envs["bare"].action_space
    space.seed(seed)
    actions = [space.sample() for _ in range(steps + WARMUP)]
    for env in envs.values():
        env.reset(seed=seed)
    times: dict[str, list[float]] = {k: [] for k in envs}
    clock = time.perf_counter
    for action in actions:
        for key, env in envs.items():
            start = clock()
            out = env.step(action)
            times[key].append(clock() - start)
            if single and (out[2] or out[3]):
                env.reset()
    bare = statistics.median(times["bare"][WARMUP:])
    return (
        statistics.median(times["anywrap"][WARMUP:]) - bare,
        statistics.median(times["gymnasium"][WARMUP:]) - bare,
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "wrappers",
        nargs="*",
        metavar="WRAPPER",
        help=f"any of {', '.join(WRAPPERS)} (default: all)",
    )
    parser.add_argument("--steps", type=int, default=3800, help="timed steps (default 3800)")
    parser.add_argument("--single", action="store_true", help="one env, not a vector env")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, got {args.steps}")
    unknown = [w for w in args.wrappers if w not in WRAPPERS]
    if unknown:
        parser.error(f"unknown wrapper(s) {unknown}; known: {', '.join(WRAPPERS)}")
    print(f"{'wrapper':26s} {'Gymnasium adds':>15s} {'anywrap adds':>13s} {'ratio':>6s}")
    for name in args.wrappers or WRAPPERS:
        ours, theirs = added_times(name, args.steps, single=args.single)
        ratio = ours / theirs if theirs > 0 else float(np.nan)
        print(f"{name:26s} {theirs * 1e6:12.1f} us {ours * 1e6:10.1f} us {ratio:6.2f}")


if __name__ == "__main__":
    main()
