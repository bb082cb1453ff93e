"""Environments and wrapper stacks the benchmarks share.

* :func:`cleanrl_stack` builds CleanRL's six-wrapper stack from a module that
  has Gymnasium's wrapper names (``gymnasium.wrappers``, ``anywrap``,
  ``gymnasium.wrappers.vector``, ``anywrap.vector``).
* :func:`torch_pendulum_vector_env` is Pendulum written in pure PyTorch, as a
  Gymnasium ``VectorEnv``: every array it returns is a tensor on its device,
  and it autoresets (NEXT_STEP) without a host sync.
* :func:`torchrl_pendulum_env` is the same dynamics as a TorchRL ``EnvBase``.

Torch is imported inside the factories, so importing this module is cheap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["cleanrl_stack", "torch_pendulum_vector_env", "torchrl_pendulum_env"]

MAX_STEPS = 200
"""Pendulum's time limit (Gymnasium's ``max_episode_steps``)."""


def cleanrl_stack(
    env: Any,
    wrappers: ModuleType,
    clip: Callable[[Any, float, float], Any],
    *,
    clip_action: bool = True,
) -> Any:
    """CleanRL's continuous-control stack, built from the wrapper classes of ``wrappers``.

    RecordEpisodeStatistics, ClipAction, NormalizeObservation,
    TransformObservation(clip to [-10, 10]), NormalizeReward(gamma=0.99),
    TransformReward(clip to [-10, 10]).

    Args:
        env: A Gymnasium env or vector env.
        wrappers: A module with Gymnasium's wrapper names.
        clip: ``clip(x, low, high)`` for the env's array library.
        clip_action: Whether ClipAction is in the stack (not for Discrete actions).
    """
    env = wrappers.RecordEpisodeStatistics(env)
    if clip_action:
        env = wrappers.ClipAction(env)
    env = wrappers.NormalizeObservation(env)
    env = wrappers.TransformObservation(env, lambda o: clip(o, -10.0, 10.0), env.observation_space)
    env = wrappers.NormalizeReward(env, gamma=0.99)
    return wrappers.TransformReward(env, lambda r: clip(r, -10.0, 10.0))


class _PendulumCore:
    """Batched Pendulum-v1 dynamics over torch tensors (Gymnasium's constants)."""

    def __init__(self, num_envs: int, device: Any, seed: int = 0) -> None:
        import torch

        self.torch = torch
        self.n = num_envs
        self.device = torch.device(device)
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(seed)
        self.th = torch.zeros(num_envs, device=self.device)
        self.thdot = torch.zeros(num_envs, device=self.device)
        self.t = torch.zeros(num_envs, dtype=torch.int32, device=self.device)

    def seed(self, seed: int) -> None:
        self.gen.manual_seed(seed)

    def _uniform(self, low: float, high: float) -> Any:
        u = self.torch.rand(self.n, generator=self.gen, device=self.device)
        return low + (high - low) * u

    def reset_rows(self, mask: Any | None) -> None:
        """Draw fresh states for the rows in ``mask`` (all rows when None), without a sync."""
        th, thdot = self._uniform(-math.pi, math.pi), self._uniform(-1.0, 1.0)
        zero = self.torch.zeros_like(self.t)
        if mask is None:
            self.th, self.thdot, self.t = th, thdot, zero
        else:
            self.th = self.torch.where(mask, th, self.th)
            self.thdot = self.torch.where(mask, thdot, self.thdot)
            self.t = self.torch.where(mask, zero, self.t)

    def obs(self) -> Any:
        torch = self.torch
        return torch.stack([torch.cos(self.th), torch.sin(self.th), self.thdot], dim=-1)

    def step(self, action: Any) -> tuple[Any, Any]:
        """Advance every row; returns ``(reward, truncated)``."""
        torch = self.torch
        u = torch.clamp(action.reshape(self.n), -2.0, 2.0)
        th, thdot = self.th, self.thdot
        norm_th = torch.remainder(th + math.pi, 2 * math.pi) - math.pi
        cost = norm_th**2 + 0.1 * thdot**2 + 0.001 * u**2
        thdot = torch.clamp(thdot + (3 * 10.0 / 2 * torch.sin(th) + 3.0 * u) * 0.05, -8.0, 8.0)
        self.th, self.thdot, self.t = th + thdot * 0.05, thdot, self.t + 1
        return -cost, self.t >= MAX_STEPS


def torch_pendulum_vector_env(num_envs: int, device: Any = "cpu") -> Any:
    """A Gymnasium ``VectorEnv`` of ``num_envs`` Pendulums in pure PyTorch.

    Observations ``(num_envs, 3)`` float32, rewards ``(num_envs,)`` float32,
    ``terminated`` / ``truncated`` bool tensors, all on ``device``. Episodes
    are truncated after 200 steps; autoreset is NEXT_STEP, done with
    ``torch.where``, so a step never syncs with the host.
    """
    import gymnasium as gym
    import numpy as np
    import torch
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

    class TorchPendulumVectorEnv(VectorEnv):
        metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

        def __init__(self) -> None:
            self.num_envs = num_envs
            self.core = _PendulumCore(num_envs, device)
            high = np.array([1.0, 1.0, 8.0], dtype=np.float32)
            self.single_observation_space = gym.spaces.Box(-high, high, dtype=np.float32)
            self.single_action_space = gym.spaces.Box(-2.0, 2.0, (1,), dtype=np.float32)
            self.observation_space = batch_space(self.single_observation_space, num_envs)
            self.action_space = batch_space(self.single_action_space, num_envs)
            self._done = torch.zeros(num_envs, dtype=torch.bool, device=self.core.device)

        def reset(self, *, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
            if seed is not None:
                self.core.seed(int(seed) if not isinstance(seed, list) else int(seed[0]))
            self.core.reset_rows(None)
            self._done = torch.zeros_like(self._done)
            return self.core.obs(), {}

        def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
            done = self._done
            reward, truncated = self.core.step(actions)
            self.core.reset_rows(done)  # NEXT_STEP: rows done last step start afresh
            reward = torch.where(done, torch.zeros_like(reward), reward)
            truncated = truncated & ~done
            terminated = torch.zeros_like(truncated)
            self._done = truncated
            return self.core.obs(), reward, terminated, truncated, {}

    return TorchPendulumVectorEnv()


def torchrl_pendulum_env(num_envs: int, device: Any = "cpu") -> Any:
    """The same batched Pendulum as a TorchRL ``EnvBase`` (batch size ``[num_envs]``).

    Keys: ``observation`` ``(num_envs, 3)``, ``reward`` ``(num_envs, 1)``,
    ``done`` / ``terminated`` / ``truncated`` ``(num_envs, 1)``; partial
    resets through TorchRL's ``_reset`` mask. Raises ``ImportError`` without
    torchrl.
    """
    import torch
    from tensordict import TensorDict
    from torchrl.data import Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase

    dev = torch.device(device)

    class TorchRLPendulum(EnvBase):
        batch_locked = True

        def __init__(self) -> None:
            super().__init__(device=dev, batch_size=torch.Size([num_envs]))
            self.core = _PendulumCore(num_envs, dev)
            n = num_envs
            self.observation_spec = Composite(
                observation=Unbounded(shape=(n, 3), device=dev), shape=(n,), device=dev
            )
            self.action_spec = Bounded(-2.0, 2.0, shape=(n, 1), device=dev)
            self.reward_spec = Unbounded(shape=(n, 1), device=dev)
            self.done_spec = Composite(
                done=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                terminated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                truncated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                shape=(n,),
                device=dev,
            )

        def _reset(self, tensordict: Any = None, **kwargs: Any) -> Any:
            mask = None
            if tensordict is not None and "_reset" in tensordict.keys():
                mask = tensordict.get("_reset").reshape(num_envs)
            self.core.reset_rows(mask)
            false = torch.zeros(num_envs, 1, dtype=torch.bool, device=dev)
            return TensorDict(
                {
                    "observation": self.core.obs(),
                    "done": false,
                    "terminated": false,
                    "truncated": false,
                },
                batch_size=self.batch_size,
                device=dev,
            )

        def _step(self, tensordict: Any) -> Any:
            reward, truncated = self.core.step(tensordict.get("action"))
            trunc = truncated.reshape(num_envs, 1)
            return TensorDict(
                {
                    "observation": self.core.obs(),
                    "reward": reward.reshape(num_envs, 1),
                    "done": trunc,
                    "terminated": torch.zeros_like(trunc),
                    "truncated": trunc,
                },
                batch_size=self.batch_size,
                device=dev,
            )

        def _set_seed(self, seed: int | None) -> None:
            if seed is not None:
                self.core.seed(seed)

    return TorchRLPendulum()
