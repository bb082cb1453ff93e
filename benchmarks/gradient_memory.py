"""Resident memory over a long run with differentiable observations and actions (issue 35).

CleanRL's stack (RecordEpisodeStatistics, ClipAction, NormalizeObservation, a clip,
NormalizeReward, a clip) plus a FrameStackObservation, on PyTorch, over the linear
differentiable env of tests/differentiable_envs.py (its own state detached each
step, as a truncated-horizon trainer does): each step's actions come from a
parameter that requires grad, and every 100 steps a loss over the step's
outputs is backpropagated. Before issue 35 the statistics kept the graph
(2 nodes a step, +113 MB eagerly per 3,000 steps of 8 envs). Prints the
resident set size (RSS) every tenth of the run, and the growth over its second
half, eager and compiled.

    python benchmarks/gradient_memory.py [steps] [num_envs] [forward]

``forward`` leaves the backward passes out (a version that keeps the graph in its
state fails the second one: "Trying to backward through the graph a second time").
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from differentiable_envs import ACT, LinearVectorEnv

import anywrap
from anywrap import xp

V = anywrap.vector


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * 4096 / 2**20


def stack(env):
    env = V.RecordEpisodeStatistics(env)
    env = V.ClipAction(env)
    env = V.NormalizeObservation(env)
    env = V.TransformObservation(env, lambda o: torch.clamp(o, -10, 10), env.observation_space)
    env = V.NormalizeReward(env, gamma=0.99)
    env = V.TransformReward(env, lambda r: torch.clamp(r, -10, 10))
    return V.FrameStackObservation(env, 4)


def run(steps: int, num_envs: int, compiled: bool, backward: bool) -> None:
    xp.set_compile(compiled)
    env = stack(LinearVectorEnv(num_envs, dtype=torch.float32))
    env.reset(seed=0)
    policy = torch.zeros(num_envs, ACT, requires_grad=True)
    marks = []
    start = time.perf_counter()
    for t in range(steps):
        obs, reward, *_ = env.step(0.5 * torch.tanh(policy))
        if backward and t % 100 == 99:
            (obs.sum() + reward.sum()).backward()
            policy.grad = None
        if t % max(1, steps // 10) == 0 or t == steps - 1:
            marks.append((t + 1, rss_mb()))
    wall = time.perf_counter() - start
    mode = "compiled" if compiled else "eager"
    print(f"{mode}: {steps} steps of {num_envs} envs in {wall:.0f} s")
    print("  RSS (MB) at step: " + ", ".join(f"{t}: {m:.1f}" for t, m in marks))
    half = next(m for t, m in marks if t > steps // 2)
    print(f"  growth over the second half: {marks[-1][1] - half:+.1f} MB")


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    num_envs = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    backward = sys.argv[3:4] != ["forward"]
    for compiled in (False, True):
        run(steps, num_envs, compiled, backward)


if __name__ == "__main__":
    main()
