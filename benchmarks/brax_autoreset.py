"""Steps per second of anywrap compositions over a MuJoCo Playground (or Brax) env.

Each case is one jitted ``lax.scan`` of ``steps`` steps over ``num_envs`` envs
(random actions in [-1, 1]); every step's obs and reward are summed into the
scan's output, so XLA cannot drop them. The cases run interleaved in rounds
after a warm-up round; each figure is the median over rounds, and each ratio
the median over rounds of the ratio within a round.

* ``bare``: Playground's ``wrap_for_brax_training(env)`` (vmap, episode limit,
  autoreset to a cached first state), stepped directly;
* ``full``: ``VmapWrapper(AutoReset(from_brax(EpisodeWrapper(env, L, 1))), n)``:
  anywrap's autoreset with a fresh ``reset`` every step (the README's
  composition until the cached autoreset came);
* ``cached``: the same with ``AutoReset(..., full_reset=False)``;
* ``cleanrl/wrapped``: the six-wrapper CleanRL stack over
  ``from_brax(wrap_for_brax_training(env))``, taken as it is (no arguments: the
  reset keys set the batch);
* ``cleanrl/cached``: the CleanRL stack over ``cached``.

Usage (Playground's ``CartpoleBalance`` with the MJX-JAX impl; with
Playground not installed, Brax's ``inverted_pendulum`` on its ``generalized``
backend)::

    python benchmarks/brax_autoreset.py [num_envs] [steps] [rounds] [episode_length]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from brax.envs.wrappers.training import EpisodeWrapper

from anywrap import functional as F
from anywrap.demo import cleanrl_stack


def load_env(episode_length: int) -> tuple[str, Any, Any]:
    """``(name, bare env, env wrapped for training as its library does it)``."""
    try:
        from mujoco_playground import registry, wrapper
    except ImportError:
        from brax import envs

        env = envs.get_environment("inverted_pendulum", backend="generalized")
        return (
            "brax inverted_pendulum (generalized)",
            env,
            envs.training.wrap(env, episode_length=episode_length),
        )
    env = registry.load("CartpoleBalance", config_overrides={"impl": "jax"})
    wrapped = wrapper.wrap_for_brax_training(env, episode_length=episode_length)
    return "Playground CartpoleBalance (impl jax)", env, wrapped


def cleanrl(env: F.FunctionalEnv) -> F.FunctionalEnv:
    """CleanRL's six wrappers, as the other benchmarks build them."""
    return cleanrl_stack(env, F, jnp.clip)


def brax_rollout(env: Any, n: int, steps: int) -> Callable[[jax.Array], jax.Array]:
    def run(key: jax.Array) -> jax.Array:
        state = env.reset(jax.random.key_data(jax.random.split(key, n)))  # Brax: raw keys

        def body(state: Any, k: jax.Array) -> tuple[Any, jax.Array]:
            action = jax.random.uniform(k, (n, env.action_size), minval=-1.0, maxval=1.0)
            state = env.step(state, action)
            return state, jnp.sum(state.obs) + jnp.sum(state.reward)

        return jax.lax.scan(body, state, jax.random.split(key, steps))[1]

    return jax.jit(run)


def anywrap_rollout(env: F.FunctionalEnv, n: int, steps: int) -> Callable[[jax.Array], jax.Array]:
    size = env.action_space.shape[0]

    def run(key: jax.Array) -> jax.Array:
        _, state = env.reset(jax.random.split(key, n))  # one key per env, as Brax

        def body(state: Any, k: jax.Array) -> tuple[Any, jax.Array]:
            action = jax.random.uniform(k, (n, size), minval=-1.0, maxval=1.0)
            s = env.step(state, action)
            return s.state, jnp.sum(s.obs) + jnp.sum(s.reward)

        return jax.lax.scan(body, state, jax.random.split(key, steps))[1]

    return jax.jit(run)


def main(n: int = 256, steps: int = 200, rounds: int = 7, episode_length: int = 100) -> None:
    name, bare_env, wrapped = load_env(episode_length)

    def episodes(full_reset: bool) -> F.FunctionalEnv:
        one = F.from_brax(EpisodeWrapper(bare_env, episode_length, 1))
        return F.VmapWrapper(F.AutoReset(one, full_reset=full_reset), n)

    cases = {
        "bare": brax_rollout(wrapped, n, steps),
        "full": anywrap_rollout(episodes(True), n, steps),
        "cached": anywrap_rollout(episodes(False), n, steps),
        "cleanrl/wrapped": anywrap_rollout(cleanrl(F.from_brax(wrapped)), n, steps),
        "cleanrl/cached": anywrap_rollout(cleanrl(episodes(False)), n, steps),
    }
    key = jax.random.key(0)
    for fn in cases.values():  # warm-up: compile
        jax.block_until_ready(fn(key))
    times: dict[str, list[float]] = {c: [] for c in cases}
    names = list(cases)
    for r in range(rounds):
        for c in names[r % len(names) :] + names[: r % len(names)]:
            t = time.perf_counter()
            jax.block_until_ready(cases[c](key))
            times[c].append(time.perf_counter() - t)
    print(f"{name}, {n} envs x {steps} steps, episodes of {episode_length}, {rounds} rounds")
    print(f"{'case':<18}{'steps/s':>12}{'x bare':>9}")
    for c in names:
        sps = n * steps / statistics.median(times[c])
        ratio = statistics.median(b / t for b, t in zip(times["bare"], times[c]))
        print(f"{c:<18}{sps:>12,.0f}{ratio:>9.2f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
