"""``anywrap demo``: CleanRL's six-wrapper stack on a JAX and a PyTorch vector env.

Runs the same ``anywrap.vector`` stack (RecordEpisodeStatistics, ClipAction,
NormalizeObservation, TransformObservation, NormalizeReward, TransformReward)
over Gymnasium's JAX ``phys2d/Pendulum-v0`` vector env and over a batched
PyTorch Pendulum, with random actions, and prints the episode returns and
lengths seen and the steps per second of each. The arrays never leave their
library.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

import anywrap
from anywrap._shell import to_numpy

__all__ = ["TorchPendulumVectorEnv", "main", "run_stack"]


class TorchPendulumVectorEnv(VectorEnv):
    """Gymnasium's Pendulum-v1 dynamics, batched in PyTorch (NEXT_STEP autoreset).

    Observations, rewards and flags are tensors on ``device``; 200-step episodes.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, device: str = "cpu", max_steps: int = 200) -> None:
        import torch

        self.torch, self.device = torch, torch.device(device)
        self.num_envs, self.max_steps = num_envs, max_steps
        high = np.array([1.0, 1.0, 8.0], dtype=np.float32)
        self.single_observation_space = gym.spaces.Box(-high, high, dtype=np.float32)
        self.single_action_space = gym.spaces.Box(-2.0, 2.0, shape=(1,), dtype=np.float32)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._gen = torch.Generator(device=self.device)

    def _initial(self, n: int) -> tuple[Any, Any]:
        t = self.torch
        u = t.rand((n, 2), generator=self._gen, device=self.device)
        return (u[:, 0] * 2 - 1) * math.pi, u[:, 1] * 2 - 1

    def _obs(self) -> Any:
        t = self.torch
        return t.stack([t.cos(self.th), t.sin(self.th), self.thdot], dim=1)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        t = self.torch
        if seed is not None:
            self._gen.manual_seed(seed)
        self.th, self.thdot = self._initial(self.num_envs)
        self.steps = t.zeros(self.num_envs, dtype=t.int64, device=self.device)
        self.prev_done = t.zeros(self.num_envs, dtype=t.bool, device=self.device)
        return self._obs(), {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict]:
        t = self.torch
        u = t.clamp(actions[:, 0], -2.0, 2.0)
        th, thdot = self.th, self.thdot
        angle = (th + math.pi) % (2 * math.pi) - math.pi
        cost = angle**2 + 0.1 * thdot**2 + 0.001 * u**2
        thdot = t.clamp(thdot + (3 * 10.0 / 2 * t.sin(th) + 3.0 * u) * 0.05, -8.0, 8.0)
        th = th + thdot * 0.05
        # NEXT_STEP autoreset: sub-envs done last step start over now.
        th0, thdot0 = self._initial(self.num_envs)
        fresh = self.prev_done
        self.th = t.where(fresh, th0, th)
        self.thdot = t.where(fresh, thdot0, thdot)
        self.steps = t.where(fresh, t.zeros_like(self.steps), self.steps + 1)
        reward = t.where(fresh, t.zeros_like(cost), -cost)
        terminated = t.zeros(self.num_envs, dtype=t.bool, device=self.device)
        truncated = self.steps >= self.max_steps
        self.prev_done = truncated
        return self._obs(), reward, terminated, truncated, {}


def cleanrl_stack(envs: VectorEnv, clip: Callable[[Any, float], Any]) -> VectorEnv:
    """CleanRL ppo_continuous_action's wrappers, from anywrap.vector."""
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.ClipAction(envs)
    envs = anywrap.vector.NormalizeObservation(envs)
    envs = anywrap.vector.TransformObservation(envs, lambda o: clip(o, 10.0))
    envs = anywrap.vector.NormalizeReward(envs, gamma=0.99)
    return anywrap.vector.TransformReward(envs, lambda r: clip(r, 10.0))


def run_stack(
    name: str, envs: VectorEnv, sample: Callable[[], Any], steps: int, progress: Any
) -> dict[str, Any]:
    """Step ``envs`` ``steps`` times with ``sample()`` actions; collect episode stats."""
    envs.reset(seed=0)
    reports: list[tuple[Any, Any]] = []
    for _ in range(3):  # warm-up (compilation on JAX)
        envs.step(sample())
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, _, _, info = envs.step(sample())
        if "episode" in info:  # device arrays: keep them, read once at the end
            reports.append((info["episode"]["r"], info["_episode"]))
        progress.update(1)
    _block(obs)
    elapsed = time.perf_counter() - start
    finished = [to_numpy(r)[to_numpy(m)] for r, m in reports]
    returns = np.concatenate(finished) if finished else np.zeros(0)
    lengths = np.asarray(list(_layer(envs, "length_queue")))
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``anywrap demo``."""
    parser = argparse.ArgumentParser(prog="anywrap demo", description=__doc__)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=600, help="vector steps per backend")
    parser.add_argument("--torch-device", default="cpu")
    args = parser.parse_args(argv)

    from tqdm.auto import tqdm

    rows = []
    with tqdm(total=2 * args.steps, desc="anywrap demo", unit="step") as bar:
        try:
            import jax
            import jax.numpy as jnp

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # phys2d's missing autoreset metadata
                jenvs = gym.make_vec("phys2d/Pendulum-v0", num_envs=args.num_envs)
            keys = iter(jax.random.split(jax.random.key(0), args.steps + 10))
            jstack = cleanrl_stack(jenvs, lambda x, c: jnp.clip(x, -c, c))
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

            tenvs = TorchPendulumVectorEnv(args.num_envs, args.torch_device)
            tstack = cleanrl_stack(tenvs, lambda x, c: torch.clamp(x, -c, c))
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
        f"{'mean length':>11} {'steps/s':>10}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['name']:32} {r['library']:6} {r['episodes']:8d} {r['mean_return']:12.1f} "
            f"{r['mean_length']:11.1f} {r['steps_per_s']:10.0f}"
        )
    print(f"\n{args.num_envs} envs x {args.steps} steps each, random actions, six wrappers.")
    return 0 if rows else 1


if __name__ == "__main__":
    raise SystemExit(main())
