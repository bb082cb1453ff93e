"""Run by test_brax_training.py in a subprocess with 4 host CPU devices: Brax's ppo.train
on an anywrap stack through BraxTraining.

Checks: the observation statistics are global (their count is every env's, on every
device); each evaluation starts from the last statistics the training sent, which after
an epoch are those of its last step; the deployed policy's inputs are the evaluation
env's observations.
"""

from __future__ import annotations

import functools
import os

import jax
import jax.numpy as jnp
import numpy as np
from brax.training.agents.ppo import networks as ppo_networks
from brax.training.agents.ppo import train as ppo
from brax_envs import Drift, raw_keys, restore_device_put_replicated

from anywrap import functional as F

assert "--xla_force_host_platform_device_count=4" in os.environ.get("XLA_FLAGS", "")
assert jax.device_count() == 4, jax.devices()
restore_device_put_replicated()
NUM_ENVS, UNROLL, EPISODE = 8, 5, 20


def stack(env):
    env = F.RecordEpisodeStatistics(env)
    env = F.NormalizeObservation(env)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -10.0, 10.0))
    return F.NormalizeReward(env, gamma=0.97)


training = F.BraxTraining(stack, publish_every=UNROLL)
box = training._mailbox
events: list[tuple[str, float, object]] = []  # ("put" / "get", count, stats), in order
put, get = box.put, box.get


def count_of(stats):
    """The whole samples counted (the count's 1e-4 prior left out)."""
    return round(float(np.asarray(stats.count, np.float64) + np.asarray(stats.count_lo)))


def spy_put(stats):
    put(stats)
    events.append(("put", count_of(stats["obs"]), box.value["obs"]))


def spy_get(fresh):
    out = get(fresh)
    if "obs" in out:  # an evaluation's (or a training reset's) observation statistics
        events.append(("get", count_of(out["obs"]), out["obs"]))
    return out


box.put, box.get = spy_put, spy_get
progress: list[tuple[int, dict]] = []
env = Drift()
make_policy, params, _ = ppo.train(
    environment=env,
    eval_env=training.eval_env(env),
    wrap_env_fn=training,
    num_timesteps=2000,
    num_envs=NUM_ENVS,
    episode_length=EPISODE,
    unroll_length=UNROLL,
    batch_size=8,
    num_minibatches=2,
    num_updates_per_batch=1,
    num_evals=3,
    num_eval_envs=4,
    network_factory=functools.partial(
        ppo_networks.make_ppo_networks,
        policy_hidden_layer_sizes=(8,),
        value_hidden_layer_sizes=(8,),
    ),
    seed=0,
    progress_fn=lambda step, metrics: progress.append((step, dict(metrics))),
)
jax.effects_barrier()

# global statistics: every env's observations (reset + each step), sent from each device
final = training.obs_stats
last_step = progress[-1][0]
assert count_of(final) == NUM_ENVS + last_step, (count_of(final), last_step)
puts = [e for e in events if e[0] == "put"]
assert len(puts) % 4 == 0  # each device sends the same statistics
for c in {e[1] for e in puts}:
    same = [e[2] for e in puts if e[1] == c]
    assert len(same) % 4 == 0
    for s in same[1:]:
        for a, b in zip(jax.tree.leaves(s), jax.tree.leaves(same[0])):
            np.testing.assert_array_equal(a, b)
assert all((c - NUM_ENVS) % (NUM_ENVS * UNROLL) == 0 for c in {e[1] for e in puts})

# every evaluation read the statistics last sent; after training, the final ones
last_put = None
reads = []
for kind, c, stats in events:
    if kind == "put":
        last_put = (c, stats)
    elif last_put is not None:
        assert c == last_put[0], (c, last_put[0])
        reads.append(c)
eval_steps = [step for step, m in progress if "eval/episode_reward" in m]
assert [NUM_ENVS + s for s in eval_steps[1:]] == reads[-len(eval_steps) + 1 :], (
    eval_steps,
    reads,
)
assert all(np.isfinite(m["eval/episode_reward"]) for _, m in progress)

# the deployed policy sees what the evaluation env gives the policy
eval_env = training(training.eval_env(Drift()), episode_length=EPISODE)
state = jax.jit(eval_env.reset)(raw_keys(7, 4))
inner = state.pipeline_state.stack
while hasattr(inner, "inner"):
    inner = inner.inner
np.testing.assert_allclose(training.observation_fn()(inner.obs), state.obs, rtol=1e-6)
key = jax.random.key(0)
deployed = training.make_policy(make_policy)(params, True)(inner.obs, key)[0]
np.testing.assert_allclose(deployed, make_policy(params, True)(state.obs, key)[0], rtol=1e-6)
print(
    "ok",
    count_of(final),
    last_step,
    reads,
    [round(float(m["eval/episode_reward"]), 3) for _, m in progress],
)
