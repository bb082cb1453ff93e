"""The time the CleanRL-like stack adds to one NumPy env's step: anywrap's over
Gymnasium's, side by side in one process, with reset at episode ends.

    PYTHONPATH=src python benchmarks/shell_overhead.py [steps] [rounds]

Prints, per env, the median over interleaved rounds of (stack - bare) per step,
and the ratio anywrap added / Gymnasium added (target <= 1.0).
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym
import numpy as np

import anywrap


def stack(env, w, clip_action):
    env = w.RecordEpisodeStatistics(env)
    if clip_action:
        env = w.ClipAction(env)
    env = w.NormalizeObservation(env)
    env = w.TransformObservation(env, lambda o: np.clip(o, -10, 10), env.observation_space)
    env = w.NormalizeReward(env, gamma=0.99)
    return w.TransformReward(env, lambda r: np.clip(r, -10, 10))


def run(env, actions):
    t = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return (time.perf_counter() - t) / len(actions)


def main(steps: int = 2000, rounds: int = 15) -> None:
    for env_id in ("Pendulum-v1", "CartPole-v1"):
        probe = gym.make(env_id)
        probe.action_space.seed(0)
        actions = [probe.action_space.sample() for _ in range(steps)]
        box = isinstance(probe.action_space, gym.spaces.Box)
        envs = {
            "bare": gym.make(env_id),
            "gymnasium": stack(gym.make(env_id), gym.wrappers, box),
            "anywrap": stack(gym.make(env_id), anywrap, box),
        }
        for e in envs.values():
            e.reset(seed=0)
            run(e, actions[:200])  # warm up
        added = {"gymnasium": [], "anywrap": []}
        for _ in range(rounds):
            t = {name: run(e, actions) for name, e in envs.items()}
            for name in added:
                added[name].append(t[name] - t["bare"])
        g, a = statistics.median(added["gymnasium"]), statistics.median(added["anywrap"])
        print(
            f"{env_id}: Gymnasium adds {g * 1e6:.1f} us/step, anywrap adds {a * 1e6:.1f} "
            f"us/step, ratio {a / g:.2f}"
        )


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
