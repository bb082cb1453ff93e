"""StickyAction for functional envs: the previous action repeated at random, from the reset key."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from anywrap.shell.checks import wrapper_name
from anywrap.shell.sticky_action import check_sticky, sample_action
from anywrap.transforms.sticky_action import StickyKeyed, StickyState, init_sticky, sticky_step
from anywrap.tree import tree_map
from anywrap.xp import resolve_dtype

from .core import FunctionalEnv, Step, Wrapper, autoreset, batch_shape, is_key_batch, split_key

__all__ = ["StickyAction", "StickyActionState"]


class StickyActionState(NamedTuple):
    """State of :class:`StickyAction`: the inner state, the state machine and its key."""

    inner: Any
    sticky: StickyState
    key: jax.Array  # raw threefry2x32 key data


class StickyAction(Wrapper):
    """With probability ``repeat_action_probability`` the env gets the previous action again,
    for a run of ``repeat_action_duration`` steps (an int or an inclusive range).

    ``reset(key)`` splits the key into the env's and the wrapper's (of a batch of
    keys, the wrapper draws from the first env's). In SAME_STEP mode an env
    forgets its last action when its episode ends.

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=1000)
        >>> env = F.StickyAction(env, repeat_action_probability=0.25)
        >>> _, state = env.reset(jax.random.key(0))
        >>> state = env.step(state, jnp.zeros((1000, 1))).state
        >>> state = env.step(state, jnp.ones((1000, 1))).state
        >>> sent = state.sticky.last[:, 0]  # the actions the env got on the second step
        >>> round(float((sent == 0).mean()), 3)  # about a quarter repeat the first action
        0.248
    """

    state_type = StickyActionState
    per_env_fields = ("sticky", "key")

    def __init__(
        self,
        env: FunctionalEnv,
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self._params = check_sticky(name, repeat_action_probability, repeat_action_duration)
        self.repeat_action_probability = self._params.p
        self.repeat_action_duration = repeat_action_duration
        self._sample = sample_action(name, env.action_space, ())

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, mine = split_key(key)
        if is_key_batch(mine):
            mine = mine[0]
        obs, inner = self.env.reset(key)
        batch = batch_shape(self.env, obs)
        sample = tree_map(
            lambda a: jnp.zeros(batch + a.shape, dtype=resolve_dtype(jnp, a.dtype.name)),
            self._sample,
        )
        s = init_sticky(sample, batch_shape=batch, xp=jnp)
        if jax.dtypes.issubdtype(mine.dtype, jax.dtypes.prng_key):
            mine = jax.random.key_data(mine)
        return obs, StickyActionState(inner, s, mine)

    def step(self, state: StickyActionState, action: Any) -> Step:
        (s, key), action = sticky_step(
            StickyKeyed(state.sticky, state.key),
            None,  # the draws come from the key in the state
            tree_map(jnp.asarray, action),
            params=self._params,
            autoreset=autoreset(self.env),
        )
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        s = s._replace(prev_terminated=terminated, prev_truncated=truncated)
        return Step(obs, StickyActionState(inner, s, key), reward, terminated, truncated, info)
