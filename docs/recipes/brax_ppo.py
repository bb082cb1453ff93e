"""Brax's PPO on an anywrap stack, evaluated and deployed with the training statistics.

``F.BraxTraining(stack)`` is a ``wrap_env_fn`` for ``brax.training.agents.ppo.train``:
the training env is the stack over the env wrapped as Brax does (its statistics
summed over Brax's pmap axis); the evaluation env leaves out the reward wrappers
and normalises with the training statistics, frozen; after training, the policy
is deployed on raw observations with those statistics. Here on Brax's tiny
``fast`` env, for a few thousand steps: this shows the plumbing, not learning
(``benchmarks/brax_ppo_learning.py`` measures learning).

Run: ``python docs/recipes/brax_ppo.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from brax import envs
from brax.training.agents.ppo import networks as ppo_networks
from brax.training.agents.ppo import train as ppo

from anywrap import functional as F

if not hasattr(jax, "device_put_replicated"):
    # Brax 0.14.2's trainers call jax.device_put_replicated, which JAX 0.10 removed
    # (JAX 0.9.2 has it). Put the copies on a mesh named as Brax's pmap axis ("i").
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def device_put_replicated(x, devices):
        sharding = NamedSharding(Mesh(np.array(devices), ("i",)), P("i"))
        stack = lambda a: jnp.stack([jnp.asarray(a)] * len(devices))  # noqa: E731
        return jax.tree.map(lambda a: jax.device_put(stack(a), sharding), x)

    jax.device_put_replicated = device_put_replicated

UNROLL = 10


def stack(env):
    """CleanRL's stack, over the env Brax wrapped for training."""
    env = F.RecordEpisodeStatistics(env)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -10, 10))
    env = F.NormalizeReward(env, gamma=0.99)
    return F.TransformReward(env, lambda r: jnp.clip(r, -10, 10))


env = envs.get_environment("fast")
training = F.BraxTraining(stack, publish_every=UNROLL)
make_policy, params, metrics = ppo.train(
    environment=env,
    eval_env=training.eval_env(env),  # the evaluation stack: no reward wrappers
    wrap_env_fn=training,
    num_timesteps=4_000,
    num_envs=16,
    episode_length=50,
    unroll_length=UNROLL,
    batch_size=16,
    num_minibatches=2,
    num_updates_per_batch=2,
    num_evals=2,
    num_eval_envs=16,
    network_factory=functools.partial(
        ppo_networks.make_ppo_networks,
        policy_hidden_layer_sizes=(16, 16),
        value_hidden_layer_sizes=(16, 16),
    ),
)
stats = training.obs_stats  # the training statistics, on the host
print(f"evaluation: episode reward {metrics['eval/episode_reward']:.1f} (the env's own units)")
print(f"training statistics: {stats.count + stats.count_lo:.0f} observations")
print("mean", np.round(stats.mean, 2), "var", np.round(stats.var, 2))

# Deployment: the policy takes raw observations and normalises them with the training
# statistics, as the evaluation env did (NormalizeObservation, then the clip).
policy = jax.jit(training.make_policy(make_policy)(params, deterministic=True))
raw = jnp.array([[0.5, 1.0]])  # position, velocity
action, _ = policy(raw, jax.random.key(0))
seen = training.observation_fn()(raw)
print("deployed: raw", raw[0].tolist(), "-> policy input", np.round(seen[0], 2))
print("action", [round(float(a), 3) for a in action[0]])

# Brax's own tools take the same statistics: its normaliser gives the policy's input.
from brax.training.acme import running_statistics  # noqa: E402

brax_params = F.brax_normalizer_params(stats)
brax_seen = running_statistics.normalize(raw, brax_params, max_abs_value=10.0)  # and the clip
same = np.allclose(brax_seen, seen, atol=1e-5)
print("Brax's normaliser agrees:", same)
