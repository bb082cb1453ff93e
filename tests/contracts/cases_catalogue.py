"""Cases of the catalogue wrappers (issue 33): Gymnasium's wrappers with no array
arithmetic (OrderEnforcing, PassiveEnvChecker, Autoreset, RenderCollection,
HumanRendering). Their device runs, where the replayed Pendulum cannot render or a
single env's reset must be read on the host: tests/wrappers/test_common.py.
"""

from __future__ import annotations

import os

import gymnasium as gym
from contracts.case import Case

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # HumanRendering's window, off screen

ENV_ID, STEPS = "Pendulum-v1", 15


def single() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS)


def rendered() -> gym.Env:
    return gym.make(ENV_ID, max_episode_steps=STEPS, render_mode="rgb_array")


def rendered_vector() -> gym.vector.VectorEnv:
    return gym.make_vec(
        ENV_ID,
        num_envs=2,
        vectorization_mode="sync",
        max_episode_steps=STEPS,
        render_mode="rgb_array",
    )


_HOST_RESET = "a single env's reset is decided in Python: tests/wrappers/test_common.py"
_RENDERS = "renders, which the replay cannot: tests/wrappers/test_common.py"

CASES: list[Case] = [
    Case("OrderEnforcing", False, single),
    Case("PassiveEnvChecker", False, single),
    Case("Autoreset", False, single, replay=False, note=_HOST_RESET),
    Case("RenderCollection", False, rendered, steps=15, replay=False, note=_RENDERS),
    Case("HumanRendering", False, rendered, steps=15, replay=False, note=_RENDERS),
    Case("HumanRendering", True, rendered_vector, steps=15, replay=False, note=_RENDERS),
]
