"""Envs of any array library for the catalogue wrappers' tests (issue 33).

:class:`LibraryEnv` and :class:`LibraryVectorEnv` present a NumPy Gymnasium env
(single or vector) as an env of another array library: every array it returns,
its infos' arrays and its rendered frames included, converted to the backend;
actions converted back. Gymnasium's wrappers over the NumPy env are then the
reference for anywrap's over the converted one. Both are unwrapped envs with the
contract suite's ``sample_action()``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from helpers import make_backend


def to_backend(backend: Any, x: Any) -> Any:
    if isinstance(x, dict):
        return {k: to_backend(backend, v) for k, v in x.items()}
    if isinstance(x, tuple | list):
        return type(x)(to_backend(backend, v) for v in x)
    if isinstance(x, np.ndarray) and x.dtype == object:
        return x
    return backend.to_backend(np.asarray(x))


def to_numpy(backend: Any, x: Any) -> Any:
    if isinstance(x, dict):
        return {k: to_numpy(backend, v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(to_numpy(backend, v) for v in x)
    if isinstance(x, np.ndarray | np.generic | int | float | bool):
        return x
    return backend.to_numpy(x)


class LibraryEnv(gym.Env):
    """``env`` (a NumPy env) with its outputs in ``library`` (0-d arrays for reward and flags)."""

    def __init__(self, env: gym.Env, library: str) -> None:
        self.env, self.backend = env, make_backend(library)
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.metadata, self.render_mode, self.spec = env.metadata, env.render_mode, None
        self.action_space.seed(0)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        return to_backend(self.backend, obs), to_backend(self.backend, info)

    def step(self, action: Any) -> Any:
        out = self.env.step(to_numpy(self.backend, action))
        return tuple(to_backend(self.backend, x) for x in out)

    def render(self) -> Any:
        return to_backend(self.backend, self.env.render())

    def sample_action(self) -> Any:
        return to_backend(self.backend, self.action_space.sample())


class LibraryVectorEnv(gym.vector.VectorEnv):
    """``envs`` (a NumPy vector env, NEXT_STEP) with its outputs in ``library``."""

    def __init__(self, envs: gym.vector.VectorEnv, library: str) -> None:
        self.env, self.backend = envs, make_backend(library)
        self.num_envs, self.metadata = envs.num_envs, envs.metadata
        self.render_mode = envs.render_mode
        self.single_observation_space = envs.single_observation_space
        self.single_action_space = envs.single_action_space
        self.observation_space, self.action_space = envs.observation_space, envs.action_space
        self.action_space.seed(0)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return to_backend(self.backend, self.env.reset(seed=seed, options=options))

    def step(self, actions: Any) -> Any:
        return to_backend(self.backend, self.env.step(to_numpy(self.backend, actions)))

    def render(self) -> Any:
        return to_backend(self.backend, self.env.render())

    def sample_action(self) -> Any:
        return to_backend(self.backend, self.action_space.sample())


class DictCounterEnv(gym.Env):
    """A single env whose state lives in ``library``: observes ``{"obs": [t, -t],
    "time": [t]}`` (float32), gets reward ``t`` and terminates from ``t == end`` on;
    nothing is read on the host."""

    def __init__(self, library: str, end: int = 5) -> None:
        backend = make_backend(library)
        self.xp, self.device, self.end = backend.xp, backend.device, end
        box = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.observation_space = gym.spaces.Dict(
            {"obs": box, "time": gym.spaces.Box(0, np.inf, (1,), np.float32)}
        )
        self.action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.t = self.xp.zeros((1,), dtype=self.xp.float32, device=self.device)

    def _obs(self) -> dict[str, Any]:
        return {"obs": self.xp.concat([self.t, -self.t]), "time": self.t}

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.t = self.xp.zeros_like(self.t)
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        self.t = self.t + 1
        t = self.t[0]
        return self._obs(), t, t >= self.end, t < 0, {}

    def sample_action(self) -> Any:
        return self.xp.zeros((1,), dtype=self.xp.float32, device=self.device)


class DictObservations(gym.vector.VectorWrapper):
    """A Box vector env's observations as ``{"obs": obs, "time": obs[:, :1]}``
    (``info["final_obs"]`` too), in the env's library."""

    def __init__(self, env: gym.vector.VectorEnv) -> None:
        super().__init__(env)
        box = env.single_observation_space
        first = gym.spaces.Box(-np.inf, np.inf, (1,), box.dtype)
        self.single_observation_space = gym.spaces.Dict({"obs": box, "time": first})
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, env.num_envs
        )

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        return {"obs": obs, "time": obs[:, :1]}, info

    def step(self, actions: Any) -> Any:
        obs, *rest, info = self.env.step(actions)
        if "final_obs" in info:
            final = info["final_obs"]
            info = {**info, "final_obs": {"obs": final, "time": final[:, :1]}}
        return ({"obs": obs, "time": obs[:, :1]}, *rest, info)


class BinCounterEnv(gym.Env):
    """A single env whose state lives in ``library``: observes ``[t, -t]`` in a finite
    Box, takes a Box action; its ``sample_action()`` is a bin index (a 0-d int array),
    what an agent gives DiscretizeAction over it. Nothing is read on the host."""

    def __init__(self, library: str) -> None:
        backend = make_backend(library)
        self.xp, self.device = backend.xp, backend.device
        self.observation_space = gym.spaces.Box(-100.0, 100.0, (2,), np.float32)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.t = self.xp.zeros((1,), dtype=self.xp.float32, device=self.device)
        # made once: an array made from a host number each step is a copy from the host
        self._bin = self.xp.asarray(3, dtype=self.xp.int64, device=self.device)

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.t = self.xp.zeros_like(self.t)
        return self.xp.concat([self.t, -self.t]), {}

    def step(self, action: Any) -> Any:
        self.t = self.t + action
        t = self.t[0]
        return self.xp.concat([self.t, -self.t]), t, t > 50, t < -50, {}

    def sample_action(self) -> Any:
        return self._bin
