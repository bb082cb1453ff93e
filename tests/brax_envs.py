"""A cheap Brax env for the tests of the Brax adapters (tests/functional/test_brax*.py).

Import it after ``pytest.importorskip("brax")``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from brax.envs.base import Env, State

OFFSET = jnp.array([5.0, -2.0, 0.0])
SCALE = jnp.array([1.0, 10.0, 0.1])


class Drift(Env):
    """A point pushed along its first coordinate: observations far from mean 0, std 1.

    ``reset`` draws the observation uniformly in ``OFFSET +- SCALE`` (a fresh random
    start per key). ``step`` moves it by ``sys["gain"] * action`` (0.5) on every
    coordinate; the reward is ``-|obs[0] - 5|`` (stay at the start's mean); the
    episode terminates when ``|obs[0] - 5| > 1.5``. ``metrics["dist"]`` is that
    distance. ``sys`` is what Brax's domain randomisation swaps per env.
    """

    def __init__(self) -> None:
        self.sys = {"gain": jnp.float32(0.5)}

    def reset(self, rng: jax.Array) -> State:
        obs = OFFSET + SCALE * jax.random.uniform(rng, (3,), minval=-1.0, maxval=1.0)
        zero = jnp.zeros(())
        return State(obs, obs, zero, zero, {"dist": jnp.abs(obs[0] - 5.0)}, {})

    def step(self, state: State, action: jax.Array) -> State:
        obs = state.obs + self.sys["gain"] * jnp.clip(action[0], -1.0, 1.0)
        dist = jnp.abs(obs[0] - 5.0)
        done = (dist > 1.5).astype(jnp.float32)
        return state.replace(
            pipeline_state=obs,
            obs=obs,
            reward=-dist,
            done=done,
            metrics={**state.metrics, "dist": dist},
        )

    @property
    def observation_size(self) -> int:
        return 3

    @property
    def action_size(self) -> int:
        return 1

    @property
    def backend(self) -> str:
        return "none"


def raw_keys(seed: int, n: int) -> Any:
    """``n`` raw (``uint32``) keys, as Brax's trainers pass them."""
    return jax.random.split(jax.random.PRNGKey(seed), n)


def restore_device_put_replicated() -> None:
    """Give JAX 0.10+ back ``jax.device_put_replicated``, which Brax 0.14.2's trainers call.

    JAX 0.10 removed it. The arrays are put on a mesh whose axis is Brax's pmap axis
    ``"i"``: JAX 0.10's pmap runs on a mesh of that name, and one jitted function
    (Brax's evaluator) refuses arrays from two meshes. JAX 0.9.2 needs none of this.
    """
    if hasattr(jax, "device_put_replicated"):
        return
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    def device_put_replicated(x: Any, devices: Any) -> Any:
        sharding = NamedSharding(Mesh(np.array(devices), ("i",)), P("i"))
        return jax.tree.map(
            lambda a: jax.device_put(jnp.stack([jnp.asarray(a)] * len(devices)), sharding), x
        )

    jax.device_put_replicated = device_put_replicated
