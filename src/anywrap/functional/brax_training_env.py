"""The Brax ``Env`` that Brax's trainers step: an anywrap functional stack inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp

from .core import FunctionalEnv

__all__ = ["BRAX_AXIS", "BraxStackEnv", "BraxStackState"]

BRAX_AXIS = "i"
"""The ``pmap`` axis of Brax's trainers (``brax.training.agents.ppo.train``)."""


class BraxStackState(NamedTuple):
    """What :class:`BraxStackEnv` keeps in Brax's ``State.pipeline_state``: the stack's
    state and the steps since ``reset``."""

    stack: Any
    t: jax.Array


def _innermost(state: Any) -> Any:
    while hasattr(state, "inner"):
        state = state.inner
    return state


def _axis_bound(name: str) -> bool:
    try:
        jax.lax.axis_index(name)
    except NameError:
        return False
    return True


class BraxStackEnv:
    """A Brax ``Env`` (``reset(keys)``, ``step(state, action)``, ``observation_size``,
    ``action_size``) that steps an anywrap functional stack.

    ``State.pipeline_state`` holds the stack's state (:class:`BraxStackState`);
    ``obs`` and ``reward`` are the stack's; ``done`` is ``terminated | truncated``;
    ``metrics`` are the Brax env's own; ``info`` carries what Brax's trainers
    read (``steps``, ``episode_metrics`` and ``time_out`` from Brax's
    ``EpisodeWrapper`` below the stack, ``truncation`` and ``episode_done`` from
    the stack's ``truncated`` and its done).

    ``stack`` is the anywrap stack it steps, over ``from_brax`` of the env as
    Brax wrapped it: its batch is that of the keys ``reset`` is given (a
    device's share under Brax's ``pmap``). Made by :class:`BraxTraining`.

    Example:
        >>> import jax
        >>> from brax import envs
        >>> from anywrap import functional as F
        >>> training = F.BraxTraining(F.NormalizeObservation)
        >>> env = training(training.eval_env(envs.get_environment("fast")), episode_length=9)
        >>> env.observation_size, env.action_size, env.stack
        (2, 1, <NormalizeObservation<BraxEnv AutoResetWrapper>>)
        >>> state = jax.jit(env.reset)(jax.random.split(jax.random.PRNGKey(0), 8))
        >>> type(state.pipeline_state).__name__, state.obs.shape, state.reward.shape
        ('BraxStackState', (8, 2), (8,))
    """

    def __init__(
        self,
        stack: FunctionalEnv,
        inner: Any,
        *,
        training: bool,
        publish: Callable[[Any, Any], None] | None = None,
        publish_every: int = 1,
        after_reset: Callable[[Any], Any] | None = None,
    ) -> None:
        self.stack = stack
        self._inner = inner
        self.training = training
        self._publish = publish
        self._publish_every = publish_every
        self._after_reset = after_reset

    # What Brax's wrappers and trainers read from an env.
    @property
    def observation_size(self) -> Any:
        space = self.stack.observation_space
        if isinstance(space, gym.spaces.Dict):
            return {k: tuple(v.shape or ()) for k, v in space.spaces.items()}
        shape = tuple(space.shape or ())
        return shape[0] if len(shape) == 1 else shape

    @property
    def action_size(self) -> int:
        return int(self.stack.action_space.shape[0])

    @property
    def backend(self) -> str:
        return str(getattr(self._inner, "backend", "anywrap"))

    @property
    def unwrapped(self) -> Any:
        return getattr(self._inner, "unwrapped", self._inner)

    def reset(self, rng: jax.Array) -> Any:
        shape = jnp.shape(rng)
        typed = jax.dtypes.issubdtype(rng.dtype, jax.dtypes.prng_key)
        if len(shape) != (1 if typed else 2):
            raise ValueError(
                f"BraxStackEnv.reset: expected a batch of keys, one per env (shape (n, 2), "
                f"as Brax's trainers pass them), got shape {shape}"
            )
        if self.training and not _axis_bound(BRAX_AXIS):
            # ppo.train(use_pmap_on_reset=False) on one device resets under vmap: give the
            # statistics' psum its axis, of size 1.
            out = jax.vmap(self._reset, axis_name=BRAX_AXIS)(rng[None])
            return jax.tree.map(lambda x: x[0], out)
        return self._reset(rng)

    def _reset(self, rng: jax.Array) -> Any:
        from brax.envs.base import State

        n = rng.shape[0]
        obs, state = self.stack.reset(rng)
        if self._after_reset is not None:
            state = self._after_reset(state)
        inner = _innermost(state)
        # No statistics are sent from a reset: under pmap, another device's reset could
        # read them as the statistics to go on from (see BraxTraining).
        zero = jnp.zeros((n,), jnp.float32)
        info = {**self._brax_info(inner), "truncation": zero, "episode_done": zero}
        t = jnp.zeros((), jnp.int32)
        return State(BraxStackState(state, t), obs, zero, zero, dict(inner.metrics), info)

    def step(self, state: Any, action: jax.Array) -> Any:
        if self.training and not _axis_bound(BRAX_AXIS):
            raise ValueError(
                "BraxStackEnv.step: this is BraxTraining's training env (its statistics are "
                f"summed over Brax's pmap axis {BRAX_AXIS!r}), stepped outside Brax's pmap. "
                "Evaluate with BraxTraining's eval env: ppo.train(..., "
                "eval_env=training.eval_env(env))"
            )
        s = self.stack.step(state.pipeline_state.stack, action)
        t = state.pipeline_state.t + 1
        if self._publish is not None:  # every publish_every steps: one host call is ~0.3 ms
            self._publish(
                s.state, None if self._publish_every == 1 else t % self._publish_every == 0
            )
        inner = _innermost(s.state)
        done = jnp.logical_or(s.terminated, s.truncated).astype(jnp.float32)
        info = {
            **state.info,
            **self._brax_info(inner),
            "truncation": s.truncated.astype(jnp.float32),
            "episode_done": done,
        }
        reward = jnp.asarray(s.reward, jnp.float32)
        return state.replace(
            pipeline_state=BraxStackState(s.state, t),
            obs=s.obs,
            reward=reward,
            done=done,
            metrics=dict(inner.metrics),
            info=info,
        )

    @staticmethod
    def _brax_info(inner: Any) -> dict[str, Any]:
        """What Brax's trainers read from the info of Brax's EpisodeWrapper below."""
        keep = ("steps", "episode_metrics", "time_out")
        return {k: inner.info[k] for k in keep if k in inner.info}

    def __repr__(self) -> str:
        return f"<BraxStackEnv {'training' if self.training else 'evaluation'}>"
