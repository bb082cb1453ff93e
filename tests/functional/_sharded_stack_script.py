"""Run by test_shard_map.py in a subprocess with 4 host CPU devices.

The whole six-wrapper CleanRL stack (RecordEpisodeStatistics, ClipAction,
NormalizeObservation, TransformObservation, NormalizeReward, TransformReward)
under ``jax.shard_map`` with ``axis_name``, JAX's replication check on
(``check_vma``, the default), and REPLICATED ``out_specs`` (``P()``) for every
statistic: the episode count, the recent-episode buffer and the moments.

The specs come from ``anywrap.functional.shard_specs`` and must equal the
hand-written list below; as ``NamedSharding`` s they also place the state for
``jax.jit`` over the unsharded program.

Reference: the same stack run unsharded. ``VmapWrapper(from_gymnax(...))``
gives every env its own key, so the random streams do not depend on the
sharding and both runs see the same trajectory. Closed forms: Pendulum
truncated at ``EP`` steps ends every episode at steps EP, 2 EP, ...
"""

from __future__ import annotations

import os
import sys

import gymnax
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from anywrap import functional as F

assert "--xla_force_host_platform_device_count=4" in os.environ.get("XLA_FLAGS", "")
D, PER, T, EP, BUF = 4, 3, 25, 7, 5
N = D * PER
ENDS = T // EP  # every env ends an episode at steps 7, 14 and 21
assert jax.device_count() == D, jax.devices()
mesh = Mesh(np.array(jax.devices()), ("d",))

# The statistics every shard holds whole; everything else is per env. Written out
# here as the reference for anywrap.functional.shard_specs.
GLOBAL_FIELDS = {
    "obs_stats",
    "rms",
    "recent_returns",
    "recent_lengths",
    "recent_times",
    "recent_size",
    "episode_count",
    "episode_count_lo",
}


def six(axis_name=None, record_axis_name="same"):
    env, params = gymnax.make("Pendulum-v1")
    env = F.VmapWrapper(F.from_gymnax(env, params.replace(max_steps_in_episode=EP)), N)
    record_axis = axis_name if record_axis_name == "same" else record_axis_name
    env = F.RecordEpisodeStatistics(env, buffer_length=BUF, stats_key="ep", axis_name=record_axis)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env, axis_name=axis_name)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -2.0, 2.0))
    env = F.NormalizeReward(env, gamma=0.9, axis_name=axis_name)
    return F.TransformReward(env, lambda r: jnp.clip(r, -3.0, 3.0))


def rollout(env, state, actions):
    def body(state, a):
        s = env.step(state, a)
        return s.state, (s.obs, s.reward, s.info["ep"]["r"], s.info["ep"]["l"], s.info["_ep"])

    return jax.lax.scan(body, state, actions)


def spec_of(path, _leaf):
    names = {getattr(k, "name", None) for k in path}
    return P() if names & GLOBAL_FIELDS else P("d")


keys = jax.random.split(jax.random.key(0), N)
actions = jax.random.uniform(jax.random.key(1), (T, N, 1), minval=-3.0, maxval=3.0)

# The unsharded run.
ref_env = six()
ref_obs0, ref_state0 = jax.jit(ref_env.reset)(keys)
ref_state, ref_out = jax.jit(lambda s, a: rollout(ref_env, s, a))(ref_state0, actions)
# The specs the stack gives (from each wrapper's declaration) are those of the list above.
specs = F.shard_specs(ref_env, ref_state0, "d")
by_hand = jax.tree_util.tree_map_with_path(spec_of, ref_state0)
assert jax.tree.structure(specs) == jax.tree.structure(by_hand)
assert jax.tree.leaves(specs) == jax.tree.leaves(by_hand)
assert sum(s == P() for s in jax.tree.leaves(specs)) == 14

# The sharded run: reset, then the rollout, each one shard_map with check_vma on.
env = six("d")
obs0, state0 = jax.jit(
    jax.shard_map(env.reset, mesh=mesh, in_specs=P("d"), out_specs=(P("d"), specs))
)(keys)


def local(state, a):
    state, out = rollout(env, state, a)
    every_shard = (F.episode_count(state)[None], F.find_state(state, F.NormalizeObservationState))
    return state, out, (every_shard[0], every_shard[1].obs_stats.mean[None])


state, out, (counts, means) = jax.jit(
    jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(specs, P(None, "d")),
        out_specs=(specs, (P(None, "d"),) * 5, (P("d"), P("d"))),
    )
)(state0, actions)


def close(got, want, what):
    if jax.dtypes.issubdtype(got.dtype, jax.dtypes.prng_key):
        got, want = jax.random.key_data(got), jax.random.key_data(want)
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=what
    )


close(obs0, ref_obs0, "reset obs")
for name, got, want in zip(("obs", "reward", "ep r", "ep l", "_ep"), out, ref_out):
    close(got, want, name)
for (path, got), want in zip(
    jax.tree_util.tree_leaves_with_path(state), jax.tree.leaves(ref_state), strict=True
):
    close(got, want, "state" + jax.tree_util.keystr(path))

# Closed forms: every env ended ENDS episodes of EP steps; every shard holds the total.
ep_done, ep_r = np.asarray(out[4]), np.asarray(out[2])
assert ep_done.sum() == N * ENDS and np.all(ep_done[EP - 1 :: EP][:ENDS])
np.testing.assert_array_equal(np.asarray(counts), N * ENDS)
assert float(F.episode_count(state)) == N * ENDS
for d in range(D):
    close(means[d], F.find_state(ref_state, F.NormalizeObservationState).obs_stats.mean, "mean")
# The buffer holds the BUF newest episodes of the whole batch: those of the
# highest global env indices at the last ending step (Gymnasium's order).
returns, lengths, valid = F.recent_episodes(state)
assert bool(jnp.all(valid))
np.testing.assert_array_equal(np.asarray(lengths), EP)
last_end = ENDS * EP - 1
np.testing.assert_allclose(np.asarray(returns), ep_r[last_end][::-1][:BUF], rtol=1e-6)
# (shard 0's own buffer would start with its envs PER-1, ..., 0: the check can fail)
assert not np.allclose(np.asarray(returns)[:PER], ep_r[last_end][PER - 1 :: -1])

# The same specs as NamedShardings for jax.jit over the unsharded program: the
# program sees the whole batch, and the state keeps its placement.
shardings = jax.tree.map(lambda s: NamedSharding(mesh, s), specs)
placed = jax.device_put(ref_state0, shardings)
jit_state, _ = jax.jit(lambda s, a: rollout(ref_env, s, a), out_shardings=(shardings, None))(
    placed, jax.device_put(actions, NamedSharding(mesh, P(None, "d")))
)
for (path, got), want in zip(
    jax.tree_util.tree_leaves_with_path(jit_state), jax.tree.leaves(ref_state), strict=True
):
    close(got, want, "jit state" + jax.tree_util.keystr(path))
assert F.find_state(jit_state, F.NormalizeObservationState).obs_stats.mean.is_fully_replicated

# Without axis_name on RecordEpisodeStatistics each shard counts its own
# episodes: JAX refuses the replicated out_specs, and the per-shard counts
# (read with the check off) are a quarter of the total.
bad = six("d", record_axis_name=None)
try:
    jax.jit(
        jax.shard_map(
            lambda s, a: bad.step(s, a).state,
            mesh=mesh,
            in_specs=(specs, P("d")),
            out_specs=specs,
        )
    )(state0, actions[0])
except Exception as e:  # JAX's error type varies with its version
    assert "episode_count" in str(e), str(e)[:2000]
else:
    raise AssertionError("shard_map accepted a per-shard episode count as replicated")
bad_counts = jax.jit(
    jax.shard_map(
        lambda s, a: F.episode_count(rollout(bad, s, a)[0])[None],
        mesh=mesh,
        in_specs=(specs, P(None, "d")),
        out_specs=P("d"),
        check_vma=False,
    )
)(state0, actions)
np.testing.assert_array_equal(np.asarray(bad_counts), PER * ENDS)
print("SHARDED-STACK-OK")
sys.exit(0)
