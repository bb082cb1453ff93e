"""DelayObservation for functional envs: each observation returned ``delay`` steps late."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import wrapper_name
from anywrap.shell.delay_observation import check_delay, zero_observation
from anywrap.transforms.delay_observation import (
    DelayState,
    delay_observation,
    delay_with_final,
    init_delay,
    reset_delay,
)
from anywrap.tree import tree_map

from .core import FunctionalEnv, Step, Wrapper, batch_shape, constant, same_step

__all__ = ["DelayObservation", "DelayObservationState"]


class DelayObservationState(NamedTuple):
    """State of :class:`DelayObservation`: the inner state and the ring of observations."""

    inner: Any
    delay: DelayState


class DelayObservation(Wrapper):
    """Return each environment's observation of ``delay`` steps ago (the space's zero
    until its episode has one), as :class:`anywrap.DelayObservation` does.

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> first, _ = bare.reset(jax.random.key(0))
        >>> env = F.DelayObservation(bare, delay=1)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> float(abs(obs).sum())  # nothing one step back yet
        0.0
        >>> bool((env.step(state, jnp.zeros((2, 1))).obs == first).all())
        True
    """

    state_type = DelayObservationState
    per_env_fields = ("delay",)

    def __init__(self, env: FunctionalEnv, delay: int) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.delay = check_delay(name, delay)
        self._zero = zero_observation(name, env.observation_space)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        zero = tree_map(constant, self._zero)
        s = init_delay(zero, delay=self.delay, batch_shape=batch_shape(self.env, obs), xp=jnp)
        s, out = reset_delay(s, obs, zero)
        return out, DelayObservationState(inner, s)

    def step(self, state: DelayObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        zero = tree_map(constant, self._zero)
        if same_step(self.env):
            final = info.get("final_obs", obs)
            s, out, final = delay_with_final(state.delay, obs, final, terminated, truncated, zero)
            if "final_obs" in info:
                info = {**info, "final_obs": final}
        else:
            s, out = delay_observation(state.delay, obs, zero)
        return Step(out, DelayObservationState(inner, s), reward, terminated, truncated, info)
