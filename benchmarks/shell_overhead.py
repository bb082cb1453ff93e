"""What anywrap's shells cost, side by side in one process.

    PYTHONPATH=src python benchmarks/shell_overhead.py [steps] [rounds]
    PYTHONPATH=src python benchmarks/shell_overhead.py --jax [num_envs] [steps] [rounds]

NumPy (default): the time the CleanRL-like stack adds to one env's step
(Pendulum-v1, CartPole-v1, reset at episode ends), anywrap's over Gymnasium's:
the median over interleaved rounds of (stack - bare) per step, and the ratio
anywrap added / Gymnasium added (target <= 1.0).

``--jax``: the stateful CleanRL vector stack over ``phys2d/Pendulum-v0``
(``num_envs``, 4096 by default; the env resets itself), step time over the bare
env's (target <= 1.05 on a GPU), each block synchronised at its end.
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym
import numpy as np

import anywrap


def stack(env, w, clip_action, clip=np.clip):
    """CleanRL's stack of the wrapper module ``w`` (``anywrap``, ``gym.wrappers``, ...)."""
    env = w.RecordEpisodeStatistics(env)
    if clip_action:
        env = w.ClipAction(env)
    env = w.NormalizeObservation(env)
    env = w.TransformObservation(env, lambda o: clip(o, -10, 10), env.observation_space)
    env = w.NormalizeReward(env, gamma=0.99)
    return w.TransformReward(env, lambda r: clip(r, -10, 10))


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


def main_jax(num_envs: int = 4096, steps: int = 100, rounds: int = 15) -> None:
    import jax
    import jax.numpy as jnp

    def make():
        return gym.make_vec("phys2d/Pendulum-v0", num_envs)

    host = np.random.default_rng(0).uniform(-2, 2, (steps, num_envs, 1)).astype(np.float32)
    actions = [jnp.asarray(a) for a in host]
    envs = {"bare": make(), "anywrap": stack(make(), anywrap.vector, True, jnp.clip)}
    for e in envs.values():
        e.reset(seed=0)

    def block(env):
        t = time.perf_counter()
        for a in actions:
            out = env.step(a)
        jax.block_until_ready(out[:4])
        return (time.perf_counter() - t) / steps

    for e in envs.values():
        block(e)  # compile
    ratios = []
    for _ in range(rounds):
        t = {name: block(e) for name, e in envs.items()}
        ratios.append(t["anywrap"] / t["bare"])
    print(
        f"phys2d/Pendulum-v0 x{num_envs} on {jax.devices()[0].platform}: anywrap stack step / "
        f"bare step = {statistics.median(ratios):.3f} (median of {rounds} rounds)"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--jax"]:
        main_jax(*(int(x) for x in sys.argv[2:5]))
    else:
        main(*(int(x) for x in sys.argv[1:3]))
