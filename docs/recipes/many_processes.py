"""Statistics across processes: every process normalises with the statistics of all of them.

Two parts, each with two processes on this machine (the loopback address), as
two hosts (or two GPUs) would run them:

1. PyTorch: each process steps its own 4 Pendulums (a NumPy vector env through
   ``ToTorch``) under CleanRL's stack, the normalisers given
   ``process_group=``. Both processes end with the same statistics: those of
   one process stepping all 8 envs.
2. JAX: two ``jax.distributed`` processes of 2 CPU devices each step 16 gymnax
   Pendulums split over the 4 devices (``shard_map``, the specs from
   ``F.shard_specs``). Process 0 writes the statistics (``anywrap.save_state``),
   and one process without ``jax.distributed`` loads them into its own stack.

Run: ``python docs/recipes/many_processes.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile

import numpy as np

STEPS = 100


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------- PyTorch
def torch_stack(num_envs: int, seed: int, group=None):
    """CleanRL's stack over ``num_envs`` Pendulums (seeds ``seed`` ...), stepped
    ``STEPS`` times with the same actions everywhere: the two normalisers."""
    import gymnasium as gym
    import torch

    import anywrap

    envs = gym.make_vec("Pendulum-v1", num_envs=num_envs, vectorization_mode="sync")
    envs = anywrap.vector.ToTorch(envs)
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.ClipAction(envs)
    envs = obs_norm = anywrap.vector.NormalizeObservation(envs, process_group=group)
    envs = anywrap.vector.TransformObservation(envs, lambda o: torch.clamp(o, -10, 10))
    envs = rew_norm = anywrap.vector.NormalizeReward(envs, gamma=0.99, process_group=group)
    envs = anywrap.vector.TransformReward(envs, lambda r: torch.clamp(r, -10, 10))
    envs.reset(seed=seed)
    for t in range(STEPS):
        envs.step(torch.full((num_envs, 1), 2.0 * np.sin(0.1 * t)))
    envs.close()
    return obs_norm.obs_rms, rew_norm.return_rms


def torch_worker(rank: int, port: str, folder: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    obs, ret = torch_stack(4, seed=4 * rank, group=dist.group.WORLD)  # envs 4r .. 4r+3
    np.savez(f"{folder}/torch_{rank}.npz", mean=obs.mean, var=obs.var, ret_var=ret.var)
    dist.destroy_process_group()


# ------------------------------------------------------------------------- JAX
N = 16  # envs, 4 per device


def jax_stack(axis_name=None):
    import gymnax
    import jax.numpy as jnp

    from anywrap import functional as F

    env = F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), N)
    env = F.RecordEpisodeStatistics(env, axis_name=axis_name)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env, axis_name=axis_name)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -10, 10))
    env = F.NormalizeReward(env, gamma=0.99, axis_name=axis_name)
    return F.TransformReward(env, lambda r: jnp.clip(r, -10, 10))


def jax_inputs():
    """The env keys and the actions, the same numbers in every process."""
    import jax

    keys = jax.random.key_data(jax.random.split(jax.random.key(0), N))
    actions = jax.random.uniform(jax.random.key(1), (STEPS, N, 1), minval=-2.0, maxval=2.0)
    return np.asarray(keys), np.asarray(actions)


def jax_worker(process_id: int, port: str, folder: str) -> None:
    import jax

    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=process_id)
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    import anywrap
    from anywrap import functional as F

    mesh = Mesh(np.array(jax.devices()), ("d",))  # 4 devices, 2 in each process
    keys, actions = jax_inputs()

    def placed(host, spec):  # a global array: each process gives its devices' rows
        sharding = NamedSharding(mesh, spec)
        return jax.make_array_from_callback(host.shape, sharding, lambda i: host[i])

    env = jax_stack("d")
    shape = jax.eval_shape(lambda k: jax_stack().reset(jax.random.wrap_key_data(k))[1], keys)
    specs = F.shard_specs(env, shape, "d")  # statistics replicated, the rest split

    def reset(keys):
        return env.reset(jax.random.wrap_key_data(keys))[1]

    def rollout(state, actions):
        return jax.lax.scan(lambda s, a: (env.step(s, a).state, None), state, actions)[0]

    reset = jax.jit(jax.shard_map(reset, mesh=mesh, in_specs=P("d"), out_specs=specs))
    run = jax.jit(
        jax.shard_map(rollout, mesh=mesh, in_specs=(specs, P(None, "d")), out_specs=specs)
    )
    state = run(reset(placed(keys, P("d"))), placed(actions, P(None, "d")))
    stats = F.find_state(state, F.NormalizeObservationState).obs_stats  # whole in each process
    np.savez(f"{folder}/jax_{process_id}.npz", mean=stats.mean, var=stats.var)
    anywrap.save_state(env, f"{folder}/stats.safetensors", state=state)  # process 0 writes
    multihost_utils.sync_global_devices("saved")


# ------------------------------------------------------------------- the host
def start(part: str, folder: str) -> None:
    """Two processes of ``part``; wait for both."""
    port = str(free_port())
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    procs = [
        # their output is gloo's connection log; errors go to stderr
        subprocess.Popen(
            [sys.executable, __file__, part, str(i), port, folder],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        for i in range(2)
    ]
    if any(p.wait(timeout=300) for p in procs):
        raise SystemExit(f"{part}: a process failed")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        start("torch", folder)
        r0, r1 = (np.load(f"{folder}/torch_{r}.npz") for r in range(2))
        obs, ret = torch_stack(8, seed=0)  # one process, all 8 envs
        print(
            "torch: both processes hold the same statistics:",
            all(np.array_equal(r0[k], r1[k]) for k in r0.files),
        )
        print(
            "torch: those of one process stepping all 8 envs:",
            all(
                (
                    np.allclose(r0["mean"], obs.mean, rtol=1e-5, atol=1e-6),
                    np.allclose(r0["var"], obs.var, rtol=1e-5),
                    np.allclose(r0["ret_var"], ret.var, rtol=1e-5),
                )
            ),
        )

        start("jax", folder)
        import jax

        import anywrap
        from anywrap import functional as F

        j0, j1 = (np.load(f"{folder}/jax_{p}.npz") for p in range(2))
        print(
            "jax: both processes hold the same statistics:",
            all(np.array_equal(j0[k], j1[k]) for k in j0.files),
        )
        env = jax_stack()  # one process, one device, no jax.distributed
        keys, actions = jax_inputs()
        _, template = env.reset(jax.random.wrap_key_data(keys))
        loaded = anywrap.load_state(env, f"{folder}/stats.safetensors", state=template)
        stats = F.find_state(loaded, F.NormalizeObservationState).obs_stats
        print(
            "jax: loaded in one process:",
            bool(np.array_equal(stats.mean, j0["mean"]) and np.array_equal(stats.var, j0["var"])),
            f"({float(stats.count + stats.count_lo):.0f} observations)",
        )
        # the same envs and actions unsharded, in this process: the same statistics
        state = jax.lax.scan(lambda s, a: (env.step(s, a).state, None), template, actions)[0]
        alone = F.find_state(state, F.NormalizeObservationState).obs_stats
        print(
            "jax: those of one process stepping all 16 envs:",
            bool(
                np.allclose(alone.mean, j0["mean"], rtol=1e-5, atol=1e-6)
                and np.allclose(alone.var, j0["var"], rtol=1e-5)
            ),
        )


if __name__ == "__main__":
    if len(sys.argv) > 1:  # a worker: part, rank, port, folder
        worker = {"torch": torch_worker, "jax": jax_worker}[sys.argv[1]]
        worker(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        main()
