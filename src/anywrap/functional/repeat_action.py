"""RepeatAction for functional envs: each action taken ``num_repeats`` times, in one program."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from anywrap.shell.checks import wrapper_name
from anywrap.wrappers.repeat_action import check_repeats

from .core import FunctionalEnv, Step, Wrapper, batch_ndim

__all__ = ["RepeatAction"]


class RepeatAction(Wrapper):
    """Steps one env ``num_repeats`` times with each action, summing the rewards, and
    stops where its episode ends (a ``lax.cond`` in a ``fori_loop``: no host read).

    Same arguments and numbers as :class:`anywrap.RepeatAction`; the reward is
    summed in the env's reward dtype. It wraps one env (``num_envs`` None): the
    sub-envs of a batch end at different steps, so wrap one and batch it with
    :class:`anywrap.functional.VmapWrapper`.

    Example:
        >>> import jax, jax.numpy as jnp, gymnasium as gym
        >>> from gymnasium.vector import AutoresetMode
        >>> from anywrap import functional as F
        >>> class Count:  # reward 1 a step; the episode ends at step 6
        ...     observation_space = gym.spaces.Box(0, 10, (), "int32")
        ...     action_space = gym.spaces.Discrete(2)
        ...     num_envs, autoreset_mode = None, AutoresetMode.DISABLED
        ...     def reset(self, key):
        ...         return jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32)
        ...     def step(self, t, action):
        ...         t = t + 1
        ...         return F.Step(t, t, jnp.ones(()), t >= 6, jnp.zeros((), bool), {})
        >>> env = F.RepeatAction(Count(), num_repeats=4)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> step = jax.jit(env.step)(state, 0)
        >>> int(step.obs), float(step.reward)
        (4, 4.0)
        >>> step = jax.jit(env.step)(step.state, 0)  # ends after 2 of the 4
        >>> int(step.obs), float(step.reward), bool(step.terminated)
        (6, 2.0, True)
    """

    def __init__(self, env: FunctionalEnv, num_repeats: int) -> None:
        check_repeats(wrapper_name(self), num_repeats)
        super().__init__(env)
        if batch_ndim(env):
            raise TypeError(
                f"{wrapper_name(self)}: expected one env (num_envs None), got a batch of "
                f"{env.num_envs}; wrap one env, then batch it with VmapWrapper"
            )
        self.num_repeats = int(num_repeats)

    def step(self, state: Any, action: Any) -> Step:
        def again(s: Step) -> Step:
            n = self.env.step(s.state, action)
            return n._replace(reward=s.reward + jnp.asarray(n.reward, s.reward.dtype))

        def repeat(_: Any, s: Step) -> Step:
            return jax.lax.cond(jnp.logical_or(s.terminated, s.truncated), lambda s: s, again, s)

        first = self.env.step(state, action)
        first = first._replace(reward=jnp.asarray(first.reward))
        return jax.lax.fori_loop(1, self.num_repeats, repeat, first)
