"""Run by test_multiprocess.py: one of 2 jax.distributed processes, 2 CPU devices each.

Usage: ``_multiprocess_script.py PORT PROCESS_ID FOLDER``. ``FOLDER`` holds
``inputs.npz`` (the env keys and two action sequences) and ``single.safetensors``
(statistics a single process saved); this process writes its results there.

1. The CleanRL stack over N Pendulums split over the 4 devices of both processes
   (``shard_map``, the specs from ``anywrap.functional.shard_specs``), reset and
   rolled out with actions A: its statistics go to ``stats_<id>.npz`` (the test
   compares them with an unsharded run). The statistics are replicated, so each
   process reads them whole; the per-env parts span the other process's devices,
   and reading them here fails, as the docs say.
2. ``anywrap.save_state`` writes ``mp.safetensors`` (process 0 writes).
3. ``anywrap.load_state`` of ``single.safetensors`` into a fresh sharded reset:
   each statistic equals the file's (read with safetensors itself) and keeps
   the template's sharding, the per-env parts are the template's; the stack
   then continues with actions A, and its statistics go to ``continued_<id>.npz``.
"""

from __future__ import annotations

import os
import sys

import jax

# JAX before 0.5.1 had no CPU collectives across processes unless asked for
# (the default is gloo since then, and anywrap needs JAX 0.8).
if getattr(jax.config, "jax_cpu_collectives_implementation", None) in (None, "none"):
    jax.config.update("jax_cpu_collectives_implementation", "gloo")

port, process_id, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
jax.distributed.initialize(
    f"127.0.0.1:{port}", num_processes=2, process_id=process_id, initialization_timeout=60
)

import numpy as np  # noqa: E402
from functional_envs import cleanrl_stack, pendulum  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402

import anywrap  # noqa: E402
from anywrap import functional as F  # noqa: E402

assert "--xla_force_host_platform_device_count=2" in os.environ.get("XLA_FLAGS", "")
assert jax.process_count() == 2 and jax.local_device_count() == 2 and jax.device_count() == 4
inputs = np.load(os.path.join(folder, "inputs.npz"))
N, EP, BUF = (int(inputs[k]) for k in ("n", "ep", "buf"))
mesh = Mesh(np.array(jax.devices()), ("d",))


def make(axis_name=None):
    return cleanrl_stack(pendulum(N, max_steps=EP), buffer_length=BUF, axis_name=axis_name)


def global_array(host, spec):
    """A jax.Array over the 4 devices from the same host array in both processes."""
    return jax.make_array_from_callback(
        host.shape, NamedSharding(mesh, spec), lambda index: host[index]
    )


def statistics(state):
    """The statistics, read by hand from the state (each process holds them whole)."""
    obs = F.find_state(state, F.NormalizeObservationState).obs_stats
    rms = F.find_state(state, F.NormalizeRewardState).returns.rms
    ep = F.find_state(state, F.EpisodeStatisticsState).episodes
    parts = {"obs": obs, "rms": rms}
    out = {f"{p}.{f}": getattr(m, f) for p, m in parts.items() for f in m._fields}
    for f in ("recent_returns", "recent_lengths", "recent_size", "episode_count"):
        out[f"ep.{f}"] = getattr(ep, f)
    out["ep.episode_count_lo"] = ep.episode_count_lo
    for name, x in out.items():
        assert x.is_fully_replicated, (name, x.sharding)
    return {name: np.asarray(x) for name, x in out.items()}


env = make("d")
raw_keys = global_array(inputs["keys"], P("d"))
actions = global_array(inputs["a"], P(None, "d"))


def reset(raw):
    return env.reset(jax.random.wrap_key_data(raw))[1]


shape = jax.eval_shape(lambda raw: make().reset(jax.random.wrap_key_data(raw))[1], raw_keys)
specs = F.shard_specs(env, shape, "d")


def rollout(state, acts):
    return jax.lax.scan(lambda s, a: (env.step(s, a).state, None), state, acts)[0]


reset_all = jax.jit(jax.shard_map(reset, mesh=mesh, in_specs=P("d"), out_specs=specs))
run = jax.jit(jax.shard_map(rollout, mesh=mesh, in_specs=(specs, P(None, "d")), out_specs=specs))

# 1. the sharded run: every process holds the statistics whole, not the per-env parts
state = run(reset_all(raw_keys), actions)
np.savez(os.path.join(folder, f"stats_{process_id}.npz"), **statistics(state))
per_env = F.find_state(state, F.NormalizeRewardState).returns.accumulated
assert not per_env.is_fully_addressable
try:
    np.asarray(per_env)
except RuntimeError as e:
    assert "non-addressable" in str(e), e
else:
    raise AssertionError("a per-env part spanning another process's devices was read")

# 2. the checkpoint: process 0 writes it
anywrap.save_state(env, os.path.join(folder, "mp.safetensors"), state=state)
multihost_utils.sync_global_devices("saved")
assert os.path.exists(os.path.join(folder, "mp.safetensors"))

# 3. the reverse: a single process's checkpoint, loaded here and continued
template = reset_all(raw_keys)
loaded = anywrap.load_state(env, os.path.join(folder, "single.safetensors"), state=template)
file = load_file(os.path.join(folder, "single.safetensors"))
keys_of = {
    "obs": "3.NormalizeObservation.obs_stats.",
    "rms": "1.NormalizeReward.returns.rms.",
    "ep": "5.RecordEpisodeStatistics.episodes.",
}
for name, value in statistics(loaded).items():
    part, _, field = name.partition(".")
    np.testing.assert_array_equal(value, file[keys_of[part] + field], err_msg=name)
for new, old in zip(jax.tree.leaves(loaded), jax.tree.leaves(template), strict=True):
    assert new.sharding == old.sharding, (new.sharding, old.sharding)
assert F.find_state(loaded, F.NormalizeRewardState).returns.accumulated is (
    F.find_state(template, F.NormalizeRewardState).returns.accumulated
)
continued = run(loaded, actions)
np.savez(os.path.join(folder, f"continued_{process_id}.npz"), **statistics(continued))
print(f"MULTIPROCESS-OK {process_id}")
