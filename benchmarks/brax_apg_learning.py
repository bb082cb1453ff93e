"""Brax APG through anywrap's observation normaliser against Brax's own: the same budget
and seeds.

Two ways to normalise the observations, everything else the same:

* ``anywrap``: ``F.NormalizeObservation`` and a clip at 10 in the env (the recipe's
  ``wrap_env_fn``, docs/recipes/brax_apg.py), differentiated through by APG with
  the statistics a constant of the gradient; Brax's ``normalize_observations=False``.
* ``brax``: Brax's ``normalize_observations=True`` (the statistics in the learner,
  also a constant of its gradient), Brax's own training wrappers, no anywrap.

The env is the recipe's differentiable point mass (observed in badly scaled units,
so that a normaliser matters). Both evaluators normalise with the training
statistics (anywrap's through ``F.BraxTraining``'s evaluation env). Prints each
run's evaluation curve (``eval/episode_reward`` at each evaluation) and wall time,
then the mean final reward per normaliser.

    python benchmarks/brax_apg_learning.py [policy_updates] [seeds]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "recipes"))
from brax_apg import PointMass, apg, training, wrap_env_fn  # noqa: E402 (patches JAX too)

CONFIG = {
    "episode_length": 32,
    "horizon_length": 32,
    "num_envs": 32,
    "num_evals": 6,
    "num_eval_envs": 32,
    "learning_rate": 1e-2,
}


def run(how: str, seed: int, updates: int) -> tuple[list[float], float]:
    curve: list[float] = []
    kw = (
        {
            "wrap_env_fn": wrap_env_fn,
            "eval_env": training.eval_env(PointMass()),
            "normalize_observations": False,
        }
        if how == "anywrap"
        else {"normalize_observations": True}
    )
    start = time.perf_counter()
    apg.train(
        environment=PointMass(),
        policy_updates=updates,
        seed=seed,
        progress_fn=lambda step, m: curve.append(float(m["eval/episode_reward"])),
        **CONFIG,
        **kw,
    )
    return curve, time.perf_counter() - start


def main() -> None:
    updates = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seeds = range(int(sys.argv[2]) if len(sys.argv) > 2 else 3)
    final: dict[str, list[float]] = {"anywrap": [], "brax": []}
    for seed in seeds:
        for how in final:
            curve, wall = run(how, seed, updates)
            final[how].append(curve[-1])
            shown = " ".join(f"{r:7.2f}" for r in curve)
            print(f"{how:8s} seed {seed}: eval reward {shown}  ({wall:.0f} s)", flush=True)
    for how, values in final.items():
        print(f"{how:8s} final eval reward: mean {statistics.mean(values):.2f} over {len(values)}")


if __name__ == "__main__":
    main()
