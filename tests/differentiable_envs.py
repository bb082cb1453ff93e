"""A tiny differentiable linear env, the same dynamics in PyTorch (one env and a vector
env) and in JAX (a functional env), for the gradient tests (tests/test_gradients.py).

    s' = decay * s + a @ B,   obs = s',   reward = obs @ w - 0.1 * |a|^2

Every step is differentiable in the action (and, through the state, in earlier
actions). Episodes never end. ``detach_state`` cuts the env's own graph at each
step (what a truncated-horizon trainer does), so that whatever graph survives a
step is the wrappers' doing.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

DIM, ACT = 3, 2
B = np.array([[0.5, -0.2, 0.3], [0.1, 0.4, -0.6]])
W = np.array([1.0, -0.5, 0.25])
DECAY = 0.9


def initial_state(num_envs: int | None, seed: int = 0) -> np.ndarray:
    """The reset state: the same on every backend."""
    shape = (DIM,) if num_envs is None else (num_envs, DIM)
    return np.random.default_rng(seed).normal(0.0, 2.0, shape)


def spaces(dtype: Any) -> tuple[gym.spaces.Box, gym.spaces.Box]:
    obs = gym.spaces.Box(-np.inf, np.inf, (DIM,), dtype)
    return obs, gym.spaces.Box(-1.0, 1.0, (ACT,), np.float32)


def _torch_step(state: Any, action: Any) -> tuple[Any, Any]:
    import torch

    b = torch.as_tensor(B, dtype=state.dtype, device=state.device)
    w = torch.as_tensor(W, dtype=state.dtype, device=state.device)
    action = action.to(state.dtype)
    new = DECAY * state + action @ b
    return new, new @ w - 0.1 * (action * action).sum(-1)


class LinearVectorEnv(gym.vector.VectorEnv):
    """The linear env on PyTorch, ``num_envs`` at once (float64 unless told)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 4, *, dtype: Any = None, detach_state: bool = True):
        import torch

        self.num_envs, self.detach_state = num_envs, detach_state
        self.dtype = dtype or torch.float64
        obs, act = spaces(np.float64 if self.dtype == torch.float64 else np.float32)
        self.single_observation_space, self.single_action_space = obs, act
        self.observation_space = batch_space(obs, num_envs)
        self.action_space = batch_space(act, num_envs)
        self.state: Any = None

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[Any, dict]:
        import torch

        self.state = torch.as_tensor(initial_state(self.num_envs, seed or 0), dtype=self.dtype)
        return self.state.clone(), {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict]:
        import torch

        new, reward = _torch_step(self.state, actions)
        self.state = new.detach() if self.detach_state else new
        done = torch.zeros(self.num_envs, dtype=torch.bool)
        return new, reward, done, done.clone(), {}


class LinearEnv(gym.Env):
    """The linear env on PyTorch, one env (float64 unless told)."""

    def __init__(self, *, dtype: Any = None, detach_state: bool = True):
        import torch

        self.detach_state = detach_state
        self.dtype = dtype or torch.float64
        self.observation_space, self.action_space = spaces(
            np.float64 if self.dtype == torch.float64 else np.float32
        )
        self.state: Any = None

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[Any, dict]:
        import torch

        super().reset(seed=seed)
        self.state = torch.as_tensor(initial_state(None, seed or 0), dtype=self.dtype)
        return self.state.clone(), {}

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        new, reward = _torch_step(self.state, action)
        self.state = new.detach() if self.detach_state else new
        return new, reward, False, False, {}


class LinearFunctionalEnv:
    """The linear env on JAX, in ``anywrap.functional``'s protocol (a batch of
    ``num_envs``); its state is the env state itself."""

    autoreset_mode = AutoresetMode.SAME_STEP

    def __init__(self, num_envs: int = 4, seed: int = 0):
        self.num_envs, self.seed = num_envs, seed
        self.observation_space, self.action_space = spaces(np.float32)

    def reset(self, key: Any) -> tuple[Any, Any]:
        import jax.numpy as jnp

        s = jnp.asarray(initial_state(self.num_envs, self.seed), dtype=jnp.float32)
        return s, s

    def step(self, state: Any, action: Any) -> Any:
        import jax.numpy as jnp

        from anywrap.functional import Step

        new = DECAY * state + action @ jnp.asarray(B, dtype=state.dtype)
        reward = new @ jnp.asarray(W, dtype=state.dtype) - 0.1 * (action * action).sum(-1)
        done = jnp.zeros(self.num_envs, dtype=bool)
        return Step(new, new, reward, done, done, {})


def reference_moments(rows: np.ndarray, count: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    """The running mean and variance after ``rows`` (all seen so far), from Gymnasium's
    start (mean 0, variance 1, count ``count``), in float64: the pooled moments."""
    rows = np.asarray(rows, np.float64)
    total = count + rows.shape[0]
    mean = rows.sum(0) / total
    m2 = count * (1.0 + mean**2) + ((rows - mean) ** 2).sum(0)
    return mean, m2 / total
