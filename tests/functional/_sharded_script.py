"""Run by test_shard_map.py in a subprocess with 4 host CPU devices.

(a) jax.jit over a NamedSharding-sharded batch, and (b) shard_map with the
wrappers' ``axis_name``, must both give the single-device numbers; (c) the
batched gymnax adapter under shard_map must hold the moments of every shard's
observations on every shard.
"""

from __future__ import annotations

import os
import sys

import gymnax
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from anywrap import functional as F
from anywrap.transforms.moments import total_count

assert "--xla_force_host_platform_device_count=4" in os.environ.get("XLA_FLAGS", "")
D, PER, T = 4, 3, 25
N = D * PER
assert jax.device_count() == D, jax.devices()


def make(axis_name=None):
    env = F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), N)
    env = F.RecordEpisodeStatistics(F.ClipAction(env))
    env = F.NormalizeObservation(env, axis_name=axis_name)
    return F.NormalizeReward(env, gamma=0.9, axis_name=axis_name)


def rollout(env, keys, actions):
    obs0, state = env.reset(keys)

    def body(state, a):
        s = env.step(state, a)
        return s.state, (s.obs, s.reward)

    state, (obs, rew) = jax.lax.scan(body, state, actions)
    om = F.find_state(state, F.NormalizeObservationState).obs_stats
    rm = F.find_state(state, F.NormalizeRewardState).returns.rms
    stats = (om.mean, om.var, total_count(om), rm.mean, rm.var, total_count(rm))
    return obs0, obs, rew, stats


keys = jax.random.split(jax.random.key(0), N)
actions = jax.random.uniform(jax.random.key(1), (T, N, 1), minval=-3.0, maxval=3.0)
ref = jax.jit(lambda k, a: rollout(make(), k, a))(keys, actions)
ref_obs0, ref_obs, ref_rew, ref_stats = ref
assert abs(float(ref_stats[2]) - N * (T + 1)) < 1e-2  # one update per step from all N envs

mesh = Mesh(np.array(jax.devices()), ("d",))


def close(a, b, what):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=2e-6, err_msg=what)


def check(obs0, obs, rew, stats, how):
    close(obs0, ref_obs0, f"{how}: reset obs")
    close(obs, ref_obs, f"{how}: obs")
    close(rew, ref_rew, f"{how}: reward")
    for name, got, want in zip(("om", "ov", "on", "rm", "rv", "rn"), stats, ref_stats):
        close(got, np.broadcast_to(np.asarray(want), np.shape(got)), f"{how}: stats {name}")


# (a) jit over a sharded batch: the program sees the global batch.
sk = jax.device_put(keys, NamedSharding(mesh, P("d")))
sa = jax.device_put(actions, NamedSharding(mesh, P(None, "d")))
out = jax.jit(lambda k, a: rollout(make(), k, a))(sk, sa)
assert len(out[1].sharding.device_set) == D, out[1].sharding
check(*out, "jit+NamedSharding")


# (b) shard_map: each device steps its own envs; the normalisers psum over "d".
def local(k, a):
    obs0, obs, rew, stats = rollout(make("d"), k, a)
    return obs0, obs, rew, tuple(s[None] for s in stats)  # one copy per device


smap = jax.shard_map(
    local,
    mesh=mesh,
    in_specs=(P("d"), P(None, "d")),
    out_specs=(P("d"), P(None, "d"), P(None, "d"), P("d")),
    check_vma=False,
)
obs0, obs, rew, stats = jax.jit(smap)(sk, sa)
assert stats[0].shape == (D, 3)  # every device holds the statistics
check(obs0, obs, rew, stats, "shard_map+axis_name")

# and without axis_name each device would learn only its own shard: the check can fail
bad = jax.jit(
    jax.shard_map(
        lambda k, a: tuple(s[None] for s in rollout(make(), k, a)[3]),
        mesh=mesh,
        in_specs=(P("d"), P(None, "d")),
        out_specs=P("d"),
        check_vma=False,
    )
)(sk, sa)
assert not np.allclose(np.asarray(bad[0]), np.asarray(ref_stats[0])[None], rtol=1e-3)


# (c) the batched gymnax adapter inside shard_map: each shard splits its own
# keys (another rollout than the unsharded one), and the statistics are global:
# every shard holds the moments of all the observations of all the shards.
def local_batched(k, a, normalize=True):
    env = F.RecordEpisodeStatistics(F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=N))
    if normalize:
        env = F.NormalizeObservation(env, axis_name="d")
    obs0, state = env.reset(k)

    def body(state, act):
        s = env.step(state, act)
        return s.state, s.obs

    state, o = jax.lax.scan(body, state, a)
    if not normalize:  # the same rollout (the normaliser does not touch the env): raw obs
        return o, obs0
    m = F.find_state(state, F.NormalizeObservationState).obs_stats
    return o, obs0, (m.mean[None], m.var[None], total_count(m)[None])


def batched(normalize):
    def f(k, a):
        return local_batched(k, a, normalize)

    out_specs = (P(None, "d"), P("d")) + (((P("d"),) * 3,) if normalize else ())
    return jax.jit(
        jax.shard_map(
            f, mesh=mesh, in_specs=(P("d"), P(None, "d")), out_specs=out_specs, check_vma=False
        )
    )(sk, sa)


o, o0, (means, variances, counts) = batched(True)
raw, raw0 = batched(False)
assert o.shape == (T, N, 3) and o0.shape == (N, 3) and means.shape == (D, 3)
np.testing.assert_allclose(np.asarray(counts), N * (T + 1) + 1e-4, rtol=1e-6)  # global, each shard
assert len({tuple(np.round(np.asarray(r), 6)) for r in np.asarray(raw0)}) == N  # no shard repeats
seen = np.concatenate([np.asarray(raw0, np.float64), np.asarray(raw, np.float64).reshape(-1, 3)])
for d in range(D):  # moments of the whole batch (the 1e-4 initial count weighs ~3e-7)
    np.testing.assert_allclose(np.asarray(means[d]), seen.mean(0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(variances[d]), seen.var(0), rtol=1e-4, atol=1e-5)
# each shard's own moments differ from the global ones: the check above can fail
own = np.asarray(raw, np.float64)[:, :PER].reshape(-1, 3)
assert not np.allclose(own.mean(0), seen.mean(0), rtol=1e-3)
print("SHARDED-OK")
sys.exit(0)
