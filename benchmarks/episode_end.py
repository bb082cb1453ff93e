"""What RecordEpisodeStatistics adds to a step on NumPy, anywrap against Gymnasium.

A stub env returns the same arrays every step, so the figures are the
wrapper's cost alone: a single env and a vector env of 16, each on steps
where an episode ends (one sub-env of the 16) and where none does. As in a
training loop, the single env is reset when its episode ends (the vector
env resets its sub-envs itself, on the next step). The three cases (bare,
Gymnasium, anywrap) run interleaved, and each figure is the median over
rounds of the best of a few repeats.

    python benchmarks/episode_end.py            # a few seconds
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

import anywrap

NUM_ENVS = 16
CALLS = 5000
ROUNDS = 7


class StubEnv(gym.Env):
    """A single env whose every step ends the episode (``ends``) or none does."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, ends: bool) -> None:
        self.ends = ends
        self.obs = np.zeros(3, np.float32)

    def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
        return self.obs, {}

    def step(self, action: Any) -> Any:
        return self.obs, 1.0, self.ends, False, {}


class StubVectorEnv(gym.vector.VectorEnv):
    """16 sub-envs; with ``ends``, one of them (in turn) ends on every step."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, ends: bool) -> None:
        self.num_envs = NUM_ENVS
        self.single_observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, NUM_ENVS
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, NUM_ENVS)
        self.obs = np.zeros((NUM_ENVS, 3), np.float32)
        self.reward = np.ones(NUM_ENVS)
        self.never = np.zeros(NUM_ENVS, bool)
        self.ends, self.turn = ends, 0

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return self.obs, {}

    def step(self, actions: Any) -> Any:
        terminated = self.never.copy()
        if self.ends:
            terminated[self.turn % NUM_ENVS] = True
            self.turn += 1
        return self.obs, self.reward, terminated, self.never, {}


def _step_and_reset(env: Any, action: Any) -> None:
    """One step of a single env's training loop: a reset where the episode ended."""
    _, _, terminated, truncated, _ = env.step(action)
    if terminated or truncated:
        env.reset()


def _added(make: Callable[[], Any], wrappers: dict[str, Any], action: Any) -> dict[str, float]:
    """Median over interleaved rounds of each wrapper's time added to the bare step, in µs."""
    envs = {"bare": make()}
    envs.update({name: wrap(make()) for name, wrap in wrappers.items()})
    for env in envs.values():
        env.reset(seed=0)
    times: dict[str, list[float]] = {name: [] for name in envs}
    for _ in range(ROUNDS):
        for name, env in envs.items():
            if isinstance(env, gym.vector.VectorEnv):
                call = partial(env.step, action)
            else:
                call = partial(_step_and_reset, env, action)
            best = min(timeit.repeat(call, number=CALLS, repeat=3))
            times[name].append(best / CALLS * 1e6)
    bare = statistics.median(times["bare"])
    return {name: statistics.median(t) - bare for name, t in times.items() if name != "bare"}


def main() -> None:
    single = {
        "Gymnasium": gym.wrappers.RecordEpisodeStatistics,
        "anywrap": anywrap.RecordEpisodeStatistics,
    }
    vector = {
        "Gymnasium": gym.wrappers.vector.RecordEpisodeStatistics,
        "anywrap": anywrap.vector.RecordEpisodeStatistics,
    }
    print(f"{'case':40s} {'Gymnasium':>10s} {'anywrap':>10s} {'ratio':>6s}")
    for ends in (True, False):
        what = "an episode ends" if ends else "no episode ends"
        cases = (
            (f"single env, {what}", partial(StubEnv, ends), single, 0),
            (
                f"vector env x{NUM_ENVS}, {what}",
                partial(StubVectorEnv, ends),
                vector,
                np.zeros((NUM_ENVS, 1), np.float32),
            ),
        )
        for label, make, wrappers, action in cases:
            got = _added(make, wrappers, action)
            ratio = got["anywrap"] / got["Gymnasium"]
            print(f"{label:40s} {got['Gymnasium']:8.2f}us {got['anywrap']:8.2f}us {ratio:6.2f}")


if __name__ == "__main__":
    main()
