"""CleanRL's PPO (ppo_continuous_action.py) with anywrap's wrappers.

The swap is eight lines of ``make_env``: ``import anywrap``, and
``gym.wrappers.X`` becomes ``anywrap.X`` for the seven wrappers. The rest of
CleanRL's script is unchanged; below it is cut to a short loop (a few
iterations, no logging) so that CI runs it in seconds.

Run: ``python docs/recipes/cleanrl_ppo.py [ITERATIONS]``.
"""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.normal import Normal

import anywrap


def make_env(env_id: str, gamma: float):
    def thunk():
        env = gym.make(env_id)
        env = anywrap.FlattenObservation(env)  # deals with dm_control's Dict observation space
        env = anywrap.RecordEpisodeStatistics(env)
        env = anywrap.ClipAction(env)
        env = anywrap.NormalizeObservation(env)
        env = anywrap.TransformObservation(
            env, lambda obs: np.clip(obs, -10, 10), env.observation_space
        )
        env = anywrap.NormalizeReward(env, gamma=gamma)
        env = anywrap.TransformReward(env, lambda reward: np.clip(reward, -10, 10))
        return env

    return thunk


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs: gym.vector.VectorEnv) -> None:
        super().__init__()
        n_obs = int(np.prod(envs.single_observation_space.shape))
        n_act = int(np.prod(envs.single_action_space.shape))
        self.critic = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(n_obs, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, n_act), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, n_act))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, action: torch.Tensor | None = None):
        mean = self.actor_mean(x)
        probs = Normal(mean, self.actor_logstd.expand_as(mean).exp())
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


def train(iterations: int = 3, num_envs: int = 4, num_steps: int = 128, seed: int = 1) -> list:
    """A few PPO iterations on Pendulum-v1; the episode returns seen."""
    gamma, gae_lambda, clip_coef, lr = 0.99, 0.95, 0.2, 3e-4
    torch.manual_seed(seed)
    envs = gym.vector.SyncVectorEnv([make_env("Pendulum-v1", gamma) for _ in range(num_envs)])
    agent = Agent(envs)
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
    obs_shape, act_shape = envs.single_observation_space.shape, envs.single_action_space.shape
    obs = torch.zeros((num_steps, num_envs, *obs_shape))
    actions = torch.zeros((num_steps, num_envs, *act_shape))
    logprobs, rewards, dones, values = (torch.zeros((num_steps, num_envs)) for _ in range(4))

    returns_seen = []
    next_obs, _ = envs.reset(seed=seed)
    next_obs, next_done = torch.Tensor(next_obs), torch.zeros(num_envs)
    for iteration in range(1, iterations + 1):
        for step in range(num_steps):
            obs[step], dones[step] = next_obs, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            next_done = torch.Tensor(np.logical_or(terminations, truncations))
            rewards[step] = torch.tensor(reward).view(-1)
            next_obs = torch.Tensor(next_obs)
            if "episode" in infos:  # Gymnasium 1.x: the episodes that ended, by mask
                for r in infos["episode"]["r"][infos["_episode"]]:
                    returns_seen.append(float(r))
                    print(f"iteration {iteration}: episodic_return={r:.1f}")

        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(num_steps)):
                nextnonterminal = 1.0 - (next_done if t == num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == num_steps - 1 else values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        b_obs, b_actions = obs.reshape((-1, *obs_shape)), actions.reshape((-1, *act_shape))
        b_logprobs, b_adv, b_returns = (
            logprobs.reshape(-1),
            advantages.reshape(-1),
            returns.reshape(-1),
        )
        for _ in range(2):  # update epochs, one minibatch each
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs, b_actions)
            ratio = (newlogprob - b_logprobs).exp()
            adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
            pg_loss = torch.max(
                -adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef)
            ).mean()
            v_loss = 0.5 * ((newvalue.view(-1) - b_returns) ** 2).mean()
            loss = pg_loss - 0.0 * entropy.mean() + 0.5 * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
    envs.close()
    return returns_seen


if __name__ == "__main__":
    seen = train(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    # 3 iterations x 128 steps x 4 envs: each env ends an episode every 200 steps.
    assert len(seen) == 4, seen
    assert all(-2000 < r < 0 for r in seen), seen  # Pendulum's returns are negative
