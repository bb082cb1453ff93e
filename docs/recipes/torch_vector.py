"""A PyTorch batched env with anywrap's vector stack: everything stays on the device.

``TorchPendulum`` is a Gymnasium ``VectorEnv`` written in PyTorch, as GPU
simulators (IsaacLab, ManiSkill, Genesis) are: observations, rewards and
flags are tensors on ``device``, and sub-envs reset themselves on the next
step (NEXT_STEP autoreset) with ``torch.where``, never reading a value on
the host. anywrap's wrappers compute on those tensors where they are.

Run: ``python docs/recipes/torch_vector.py [DEVICE]`` (default: ``cuda``
where there is one, else ``cpu``).
"""

# Gymnasium's names for what a step returns, used or not, as readers know them.
# ruff: noqa: RUF059

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import anywrap


class TorchPendulum(VectorEnv):
    """``num_envs`` Pendulum-v1s in PyTorch, truncated after 200 steps."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, device: str = "cpu") -> None:
        self.num_envs, self.device = num_envs, torch.device(device)
        high = np.array([1.0, 1.0, 8.0], dtype=np.float32)
        self.single_observation_space = gym.spaces.Box(-high, high, dtype=np.float32)
        self.single_action_space = gym.spaces.Box(-2.0, 2.0, (1,), dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.generator = torch.Generator(device=self.device)
        zeros = torch.zeros(num_envs, device=self.device)
        self.theta, self.speed, self.steps = zeros.clone(), zeros.clone(), zeros.clone()
        self.done = torch.zeros(num_envs, dtype=torch.bool, device=self.device)

    def _obs(self) -> torch.Tensor:
        return torch.stack([self.theta.cos(), self.theta.sin(), self.speed], dim=1)

    def _restart(self, rows: torch.Tensor) -> None:
        """Fresh states for the sub-envs in the boolean mask ``rows``."""
        shape, dev, gen = (self.num_envs,), self.device, self.generator
        theta = (torch.rand(shape, device=dev, generator=gen) * 2 - 1) * np.pi
        speed = torch.rand(shape, device=dev, generator=gen) * 2 - 1
        self.theta = torch.where(rows, theta, self.theta)
        self.speed = torch.where(rows, speed, self.speed)
        self.steps = torch.where(rows, torch.zeros_like(self.steps), self.steps)

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.generator.manual_seed(seed)
        self._restart(torch.ones_like(self.done))
        self.done = torch.zeros_like(self.done)
        return self._obs(), {}

    def step(self, actions):
        torque = actions.reshape(-1).clamp(-2.0, 2.0)
        angle = (self.theta + np.pi) % (2 * np.pi) - np.pi
        reward = -(angle**2 + 0.1 * self.speed**2 + 0.001 * torque**2)
        self.speed = (self.speed + (15.0 * self.theta.sin() + 3.0 * torque) * 0.05).clamp(-8, 8)
        self.theta = self.theta + self.speed * 0.05
        self.steps = self.steps + 1
        was_done = self.done  # NEXT_STEP: a sub-env done last step restarts now
        self._restart(was_done)
        reward = torch.where(was_done, torch.zeros_like(reward), reward)
        truncated = (self.steps >= 200) & ~was_done
        terminated = torch.zeros_like(truncated)
        self.done = truncated
        return self._obs(), reward, terminated, truncated, {}


def main(device: str) -> None:
    envs = TorchPendulum(num_envs=1024, device=device)
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.ClipAction(envs)
    envs = obs_norm = anywrap.vector.NormalizeObservation(envs)
    envs = anywrap.vector.TransformObservation(envs, lambda obs: torch.clamp(obs, -10, 10))
    envs = anywrap.vector.NormalizeReward(envs, gamma=0.99)
    envs = anywrap.vector.TransformReward(envs, lambda reward: torch.clamp(reward, -10, 10))

    obs, info = envs.reset(seed=0)
    generator = torch.Generator(device=device).manual_seed(0)
    returns = []
    for _ in range(400):
        actions = torch.rand((1024, 1), device=device, generator=generator) * 4 - 2
        obs, reward, terminated, truncated, info = envs.step(actions)
        # On device arrays info["episode"] is there on every step; "_episode"
        # masks the sub-envs whose episode ended. Keep tensors, read once at the end.
        returns.append(info["episode"]["r"][info["_episode"]])
    returns = torch.cat(returns)
    print(f"{type(obs).__name__} on {obs.device}, statistics on {obs_norm.obs_rms.mean.device}")
    print(f"{returns.numel()} episodes, mean return {returns.mean():.1f}")
    assert obs.device.type == torch.device(device).type
    assert obs_norm.obs_rms.mean.device.type == obs.device.type
    assert returns.numel() == 1024  # each sub-env ended one episode in 400 steps


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cuda" if torch.cuda.is_available() else "cpu")
