"""Brax PPO with anywrap's observation normaliser against Brax's own: the same budget and seeds.

Two ways to normalise the observations, everything else the same:

* ``anywrap``: ``NormalizeObservation`` in the env, through ``F.BraxTraining``;
  Brax's ``normalize_observations=False``. Its evaluator normalises with the
  training statistics, frozen (sent to the host once per unroll).
* ``brax``: Brax's ``normalize_observations=True`` (the statistics in the
  learner); the env through ``F.BraxTraining`` with no wrapper.

Envs: ``pendulum``, Brax's ``inverted_pendulum`` (positional backend) with a
scaled-down copy of Brax's tuned PPO settings for it (solved, 1000, within
a few hundred thousand steps on a CPU); ``cartpole``, MuJoCo Playground's
``CartpoleBalance`` (MJX-JAX impl) with a scaled-down copy of Playground's
DM Control settings (which train it for 60M steps). Seeds 0 and 1. Prints each
run's evaluation curve (``eval/episode_reward`` against env steps), its wall
time and its training speed (the median of ``training/sps`` over the epochs
after the first, which compiles).

    python benchmarks/brax_ppo_learning.py [pendulum|cartpole] [num_timesteps] [seeds]

With matplotlib installed it also draws the curves into
``bench-results/brax_ppo_<env>.png`` (one line per normaliser and seed).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jax

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from brax.training.agents.ppo import train as ppo
from brax_envs import restore_device_put_replicated

from anywrap import functional as F

restore_device_put_replicated()  # Brax 0.14.2's PPO on JAX 0.10


COMMON = {
    "num_envs": 256,
    "batch_size": 256,
    "num_minibatches": 8,
    "num_updates_per_batch": 4,
    "entropy_cost": 1e-2,
    "reward_scaling": 10.0,
    "episode_length": 1000,
    "num_eval_envs": 64,
}
SETTINGS = {
    "pendulum": {
        "unroll_length": 5,
        "discounting": 0.97,
        "learning_rate": 3e-4,
        "num_evals": 9,
        **COMMON,
    },
    "cartpole": {
        "unroll_length": 20,
        "discounting": 0.995,
        "learning_rate": 1e-3,
        "num_evals": 5,
        **COMMON,
    },
}


def load(name: str) -> tuple[str, Any]:
    if name == "cartpole":
        from mujoco_playground import registry

        env = registry.load("CartpoleBalance", config_overrides={"impl": "jax"})
        return "Playground CartpoleBalance (impl jax)", env
    from brax import envs

    return "Brax inverted_pendulum (positional)", envs.get_environment(
        "inverted_pendulum", backend="positional"
    )


def run(
    env: Any, config: dict[str, Any], how: str, seed: int, num_timesteps: int
) -> tuple[list[tuple[int, float]], float, float]:
    normalize = F.NormalizeObservation if how == "anywrap" else (lambda e: e)
    # Once per training step of ppo.train (unroll_length x batch_size x num_minibatches
    # / num_envs env steps): a divisor of an epoch, so evaluations see the last statistics.
    every = config["unroll_length"] * config["batch_size"] * config["num_minibatches"]
    training = F.BraxTraining(normalize, publish_every=every // config["num_envs"])
    curve: list[tuple[int, float]] = []
    sps: list[float] = []
    t = time.perf_counter()
    ppo.train(
        environment=env,
        eval_env=training.eval_env(env),
        wrap_env_fn=training,
        num_timesteps=num_timesteps,
        normalize_observations=how == "brax",
        seed=seed,
        progress_fn=lambda step, m: (
            curve.append((step, float(m["eval/episode_reward"]))),
            "training/sps" in m and sps.append(float(m["training/sps"])),
        ),
        **config,
    )
    return curve, time.perf_counter() - t, statistics.median(sps[1:] or sps)


def main(which: str = "pendulum", num_timesteps: int = 330_000, seeds: int = 2) -> None:
    name, env = load(which)
    config = SETTINGS[which]
    print(f"{name}, {num_timesteps} steps, {jax.device_count()} device(s), {config}")
    curves: dict[tuple[str, int], list[tuple[int, float]]] = {}
    for seed in range(seeds):
        for how in ("anywrap", "brax"):
            curve, wall, sps = run(env, config, how, seed, num_timesteps)
            curves[how, seed] = curve
            points = " ".join(f"{s}:{r:.0f}" for s, r in curve)
            print(
                f"{how:<8} seed {seed}  final {curve[-1][1]:7.1f}  {wall:4.0f} s  "
                f"{sps:7.0f} steps/s | {points}"
            )
    plot(curves, name, Path("bench-results") / f"brax_ppo_{which}.png")


def plot(curves: dict[tuple[str, int], list[tuple[int, float]]], title: str, path: Path) -> None:
    """The evaluation curves in one figure (skipped without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    for (how, seed), curve in curves.items():
        steps, rewards = zip(*curve)
        ax.plot(
            steps,
            rewards,
            color="tab:blue" if how == "anywrap" else "tab:orange",
            linestyle="-" if seed == 0 else "--",
            label=f"{'anywrap NormalizeObservation' if how == 'anywrap' else 'Brax normaliser'}, "
            f"seed {seed}",
        )
    ax.set_xlabel("env steps")
    ax.set_ylabel("eval episode reward")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"plot: {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "pendulum", *(int(a) for a in sys.argv[2:]))
