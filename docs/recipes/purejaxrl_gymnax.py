"""purejaxrl's env wrappers, replaced by ``anywrap.functional``, on a gymnax env.

purejaxrl builds its continuous-control env as
``NormalizeVecReward(NormalizeVecObservation(VecEnv(ClipAction(LogWrapper(env)))))``.
With anywrap the same stack is below: a batched gymnax env
(``from_gymnax(..., num_envs=n)``, one ``jax.vmap``), then the wrappers,
whose state lives in the env state, so a training loop's carry stays
``(env_state, obs, key)`` and the whole loop compiles into one program.
Here the policy is a fixed linear one; a PPO update would go where the
comment says.

Run: ``python docs/recipes/purejaxrl_gymnax.py``.
"""

# Gymnasium's names for what a step returns, used or not, as readers know them.
# ruff: noqa: RUF059

from __future__ import annotations

import gymnax
import jax
import jax.numpy as jnp

from anywrap import functional as F

NUM_ENVS, NUM_STEPS, NUM_UPDATES = 512, 100, 6


def make_env():
    env, params = gymnax.make("Pendulum-v1")
    env = F.from_gymnax(env, params, num_envs=NUM_ENVS)  # purejaxrl: VecEnv
    env = F.RecordEpisodeStatistics(env)  # LogWrapper
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env)  # NormalizeVecObservation
    return F.NormalizeReward(env, gamma=0.99)  # NormalizeVecReward


def train(key):
    env = make_env()
    policy = jnp.array([[-1.0], [0.0], [-0.5]])  # obs (3,) -> torque
    key, reset_key = jax.random.split(key)
    obs, env_state = env.reset(reset_key)

    def update(runner_state, _):
        def env_step(runner_state, _):
            env_state, obs, key = runner_state
            key, noise_key = jax.random.split(key)
            noise = 0.5 * jax.random.normal(noise_key, (NUM_ENVS, 1))
            action = 2.0 * jnp.tanh(obs @ policy) + noise
            obs, env_state, reward, terminated, truncated, info = env.step(env_state, action)
            episode = (info["episode"]["r"], info["_episode"])
            return (env_state, obs, key), (reward, episode)

        runner_state, (rewards, (returns, ended)) = jax.lax.scan(
            env_step, runner_state, None, NUM_STEPS
        )
        # ... a PPO update of the policy on the trajectory would go here ...
        mean_return = jnp.sum(jnp.where(ended, returns, 0.0)) / jnp.maximum(ended.sum(), 1)
        return runner_state, (mean_return, ended.sum())

    runner_state = (env_state, obs, key)
    runner_state, metrics = jax.lax.scan(update, runner_state, None, NUM_UPDATES)
    return runner_state, metrics


if __name__ == "__main__":
    (env_state, obs, key), (mean_returns, episodes) = jax.jit(train)(jax.random.key(0))
    for i, (r, n) in enumerate(zip(mean_returns.tolist(), episodes.tolist())):
        print(f"update {i}: {n} episodes ended" + (f", mean return {r:.1f}" if n else ""))
    stats = F.find_state(env_state, F.NormalizeObservationState).obs_stats
    print("observation mean", [round(v, 2) for v in stats.mean.tolist()], "count", int(stats.count))
    assert int(episodes.sum()) == 3 * NUM_ENVS  # 600 steps: every env ended 3 episodes
    assert obs.shape == (NUM_ENVS, 3)
