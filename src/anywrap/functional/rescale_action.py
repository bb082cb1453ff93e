"""RescaleAction for functional envs: the agent acts in new bounds, mapped back for the env."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from anywrap.shell.arrays import rescaled_box
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.rescale import affine_inverse

from .core import FunctionalEnv, Step, Wrapper, constant

__all__ = ["RescaleAction"]


class RescaleAction(Wrapper):
    """Affinely rescale a Box action space to ``[min_action, max_action]``, as
    :class:`anywrap.RescaleAction` does.

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.RescaleAction(bare, -1.0, 1.0)
        >>> env.action_space
        Box(-1.0, 1.0, (1,), float32)
        >>> _, state = env.reset(jax.random.key(0))
        >>> # 0.5 in [-1, 1] is the env's 1.0 in [-2, 2]
        >>> a = env.step(state, jnp.full((2, 1), 0.5)).obs
        >>> b = bare.step(state, jnp.full((2, 1), 1.0)).obs
        >>> bool((a == b).all())
        True
    """

    def __init__(self, env: FunctionalEnv, min_action: Any, max_action: Any) -> None:
        super().__init__(env)
        self.min_action, self.max_action = min_action, max_action
        self._space, self._g, self._c = rescaled_box(
            wrapper_name(self), env.action_space, min_action, max_action, "action"
        )

    action_space = property(lambda self: self._space)  # type: ignore[assignment]

    def step(self, state: Any, action: Any) -> Step:
        a = affine_inverse(jnp.asarray(action), constant(self._g), constant(self._c))
        return self.env.step(state, a)
