"""Brax's analytic policy gradient (APG) trained through an anywrap functional stack.

APG differentiates the return through the env's step, so through the wrappers on
it: here ``NormalizeObservation`` and a clip, over a differentiable point mass
written as a Brax ``Env``. The statistics are a constant of the gradient and
learn from the observations' values (docs/guide/gradients.md), as Brax's own
normaliser does in its learner. A tiny configuration that CI runs in seconds:
``benchmarks/brax_apg_learning.py`` compares learning against Brax's normaliser.

Run: ``python docs/recipes/brax_apg.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from brax.envs.base import Env, State
from brax.training.agents.apg import train as apg

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


class PointMass(Env):
    """Push a mass to the origin: ``v' = 0.9 v + 0.1 a``, ``x' = x + 0.1 v'``, reward
    ``-|x'|^2``. Observed in badly scaled units (centimetres, offset by 50), which a
    normaliser fixes. Every step is differentiable in the action."""

    def reset(self, rng):
        pos = jax.random.uniform(rng, (2,), minval=-1.0, maxval=1.0)
        vel = jnp.zeros(2)
        zero = jnp.zeros(())
        return State({"pos": pos, "vel": vel}, self._obs(pos, vel), zero, zero)

    def step(self, state, action):
        vel = 0.9 * state.pipeline_state["vel"] + 0.1 * action
        pos = state.pipeline_state["pos"] + 0.1 * vel
        reward = -jnp.sum(pos * pos)
        return state.replace(
            pipeline_state={"pos": pos, "vel": vel}, obs=self._obs(pos, vel), reward=reward
        )

    @staticmethod
    def _obs(pos, vel):
        return jnp.concatenate([100.0 * pos + 50.0, vel])

    observation_size = property(lambda self: 4)
    action_size = property(lambda self: 2)
    backend = property(lambda self: "jax")


def stack(env):
    """The wrappers APG differentiates through."""
    env = F.NormalizeObservation(env)
    return F.TransformObservation(env, lambda o: jnp.clip(o, -10.0, 10.0))


training = F.BraxTraining(stack)  # the training env's statistics reach its evaluator


class StepOutsidePmap:
    """APG steps its training env once outside its ``pmap`` (to compile early), where
    the statistics' sum over Brax's pmap axis has no axis: give it one, of size 1."""

    def __init__(self, env):
        self.env = env

    def __getattr__(self, name):
        return getattr(self.env, name)

    def reset(self, rng):
        return self.env.reset(rng)

    def step(self, state, action):
        try:
            jax.lax.axis_index(F.BRAX_AXIS)  # inside APG's pmap: as it is
            return self.env.step(state, action)
        except NameError:
            pass
        one = lambda t: jax.tree.map(lambda x: x[None], t)  # noqa: E731
        out = jax.vmap(self.env.step, axis_name=F.BRAX_AXIS)(one(state), one(action))
        return jax.tree.map(lambda x: x[0], out)


def wrap_env_fn(env, **kwargs):
    """APG's ``wrap_env_fn``: Brax's training wrappers, then the anywrap stack."""
    return StepOutsidePmap(training(env, **kwargs))


if __name__ == "__main__":
    rewards = []
    make_policy, params, metrics = apg.train(
        environment=PointMass(),
        eval_env=training.eval_env(PointMass()),  # evaluates with the training statistics
        wrap_env_fn=wrap_env_fn,
        episode_length=16,
        horizon_length=16,
        policy_updates=60,
        num_envs=8,
        num_evals=3,
        num_eval_envs=256,  # a wide evaluation: before and after differ by learning, not by luck
        learning_rate=1e-2,  # 3e-2 learned on some CPUs only (XLA's numbers differ by CPU)
        progress_fn=lambda step, m: rewards.append(float(m["eval/episode_reward"])),
    )
    print(f"evaluation reward: {rewards[0]:.1f} before training, {rewards[-1]:.1f} after")
    print("learned:", rewards[-1] > rewards[0] + 3.0)
