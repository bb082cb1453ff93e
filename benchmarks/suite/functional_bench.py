"""Speed of the functional wrapper stack inside one jitted ``lax.scan`` rollout.

Three rollouts of gymnax Pendulum-v1 (``num_envs`` envs x ``steps`` steps, random
actions), each compiled whole:

* A ``bare``: ``jax.vmap`` of the gymnax env, nothing else;
* B ``anywrap``: the six functional wrappers (RecordEpisodeStatistics,
  ClipAction, NormalizeObservation, TransformObservation(clip), NormalizeReward,
  TransformReward(clip)) over the adapted env;
* C ``peer``: gymnax ``LogWrapper`` + Brax ``acme.running_statistics``
  observation normaliser + an action clip.

Runs are interleaved in rounds (the order rotates from round to round) after
a warm-up; each case's median time is reported as env steps per second, and
each ratio is the median over rounds of the ratio within a round.

Each step's outputs must be used, or XLA drops them. ``consumer="sum"`` (the
default, the setting the targets were set with) reduces obs and reward to one
number per step; ``consumer="trajectory"`` returns them from the scan, as a
PPO rollout stores its trajectory. They differ for the bare env: with
``"sum"``, XLA's CPU backend fuses the env's reward arithmetic into the final
reduction, a slow kernel (about 10% of the bare step), which any wrapper that
reads the reward first avoids. ``"trajectory"`` has no such artefact, so its
"x bare" ratios are the lower, more realistic ones.

Usage::

    python -m benchmarks.suite.functional_bench [num_envs] [steps] [reps] [sum|trajectory]

On a small shared machine, ``taskset -c 0 python -m ...`` gives far quieter
ratios: spread over the cores, XLA splits some kernels over threads, and the
hand-offs move from run to run.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import gymnax
import jax
import jax.numpy as jnp
from brax.training.acme import running_statistics
from gymnax.wrappers.purerl import LogWrapper

from anywrap import functional as F


def _actions(key: jax.Array, n: int) -> jax.Array:
    return jax.random.uniform(key, (n, 1), minval=-3.0, maxval=3.0)


def _sum(obs: jax.Array, reward: jax.Array) -> jax.Array:
    """One number per step from obs and reward (so XLA cannot drop them)."""
    return jnp.sum(obs) + jnp.sum(reward)


def _trajectory(obs: jax.Array, reward: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The step's obs and reward, stacked by the scan into a trajectory."""
    return obs, reward


CONSUMERS: dict[str, Callable[[jax.Array, jax.Array], Any]] = {
    "sum": _sum,
    "trajectory": _trajectory,
}


def _bare(
    num_envs: int, steps: int, consume: Callable[..., Any] = _sum
) -> tuple[Callable[..., Any], Any]:
    env, params = gymnax.make("Pendulum-v1")

    def init(key: jax.Array) -> Any:
        k, sub = jax.random.split(key)
        _, st = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(sub, num_envs), params)
        return st, k

    def body(carry: Any, _: Any) -> Any:
        st, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        keys = jax.random.split(k_step, num_envs)
        obs, st, reward, _term, _trunc, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            keys, st, _actions(k_act, num_envs), params
        )
        return (st, key), consume(obs, reward)

    return _rollout(init, body, steps)


def _anywrap(
    num_envs: int, steps: int, consume: Callable[..., Any] = _sum
) -> tuple[Callable[..., Any], Any]:
    env: Any = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=num_envs)
    env = F.RecordEpisodeStatistics(env)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -10.0, 10.0))
    env = F.NormalizeReward(env)
    env = F.TransformReward(env, lambda r: jnp.clip(r, -10.0, 10.0))

    def init(key: jax.Array) -> Any:
        k, sub = jax.random.split(key)
        return env.reset(sub)[1], k

    def body(carry: Any, _: Any) -> Any:
        state, key = carry
        key, k_act = jax.random.split(key)
        s = env.step(state, _actions(k_act, num_envs))
        return (s.state, key), consume(s.obs, s.reward)

    return _rollout(init, body, steps)


def _peer(
    num_envs: int, steps: int, consume: Callable[..., Any] = _sum
) -> tuple[Callable[..., Any], Any]:
    env, params = gymnax.make("Pendulum-v1")
    env = LogWrapper(env)
    low, high = -2.0, 2.0

    def init(key: jax.Array) -> Any:
        k, sub = jax.random.split(key)
        obs, st = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(sub, num_envs), params)
        rs = running_statistics.init_state(jax.ShapeDtypeStruct(obs.shape[1:], jnp.float32))
        return st, rs, k

    def body(carry: Any, _: Any) -> Any:
        st, rs, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        keys = jax.random.split(k_step, num_envs)
        action = jnp.clip(_actions(k_act, num_envs), low, high)
        obs, st, reward, _term, _trunc, _info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            keys, st, action, params
        )
        rs = running_statistics.update(rs, obs)
        obs = running_statistics.normalize(obs, rs)
        return (st, rs, key), consume(obs, reward)

    return _rollout(init, body, steps)


def _rollout(
    init: Callable[[jax.Array], Any], body: Callable[..., Any], steps: int
) -> tuple[Callable[..., Any], Any]:
    @jax.jit
    def run(carry: Any) -> Any:
        return jax.lax.scan(body, carry, None, length=steps)

    return run, jax.jit(init)(jax.random.key(0))


def _time(fn: Callable[..., Any], carry: Any) -> float:
    t0 = time.perf_counter()
    jax.block_until_ready(fn(carry))
    return time.perf_counter() - t0


def run(
    num_envs: int = 4096, steps: int = 200, reps: int = 5, consumer: str = "sum"
) -> dict[str, Any]:
    """Median env steps/s of the bare env, the anywrap stack and the peer stack, and ratios."""
    if consumer not in CONSUMERS:
        raise ValueError(f"consumer must be one of {sorted(CONSUMERS)}, got {consumer!r}")
    consume = CONSUMERS[consumer]
    cases = {"bare": _bare, "anywrap": _anywrap, "peer": _peer}
    built = {name: make(num_envs, steps, consume) for name, make in cases.items()}
    for fn, carry in built.values():  # compile and warm up
        _time(fn, carry)
        _time(fn, carry)
    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(built)
    for r in range(reps):
        for name in names[r % 3 :] + names[: r % 3]:  # rotate: no case always goes first
            fn, carry = built[name]
            times[name].append(_time(fn, carry))
    sps = {name: num_envs * steps / statistics.median(t) for name, t in times.items()}

    def paired(a: str, b: str) -> float:
        # Median over rounds of the speed ratio within each round: the cases of
        # one round ran back to back, so a slow spell on the shared machine
        # weighs on both sides of each ratio.
        return statistics.median(tb / ta for ta, tb in zip(times[a], times[b]))

    return {
        "num_envs": num_envs,
        "steps": steps,
        "reps": reps,
        "consumer": consumer,
        "bare_steps_per_s": sps["bare"],
        "anywrap_steps_per_s": sps["anywrap"],
        "peer_steps_per_s": sps["peer"],
        "anywrap_vs_bare": paired("anywrap", "bare"),
        "anywrap_vs_peer": paired("anywrap", "peer"),
        "peer_vs_bare": paired("peer", "bare"),
    }


if __name__ == "__main__":
    argv = sys.argv[1:]
    sizes = dict(zip(("num_envs", "steps", "reps"), (int(a) for a in argv[:3])))
    result = run(**sizes, consumer=argv[3] if len(argv) > 3 else "sum")
    for k, v in result.items():
        print(f"{k:>22}: {v:,.3f}" if isinstance(v, float) else f"{k:>22}: {v}")
