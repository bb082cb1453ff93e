"""ClipAction for functional envs: the action clipped to the Box's bounds before the env sees it."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import jax.numpy as jnp
import numpy as np

from anywrap.shell.checks import wrapper_name
from anywrap.transforms.actions import clip_action

from .core import FunctionalEnv, Step, Wrapper

__all__ = ["ClipAction"]


class ClipAction(Wrapper):
    """Clip a continuous action to the action space's bounds; the space becomes
    ``Box(-inf, inf)``, as in Gymnasium.

    Example:
        gymnax's MountainCar charges ``0.1 * a**2`` for the action it gets:

        >>> import jax, jax.numpy as jnp, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=3)
        >>> env = F.ClipAction(car)
        >>> env.action_space, car.action_space
        (Box(-inf, inf, (1,), float32), Box(-1.0, 1.0, (1,), float32))
        >>> _, state = env.reset(jax.random.key(0))
        >>> action = jnp.array([[5.0], [-0.25], [-3.0]])
        >>> np.asarray(env.step(state, action).reward).round(5)  # clipped to 1, -0.25, -1
        array([-0.1    , -0.00625, -0.1    ], dtype=float32)
        >>> np.asarray(car.step(state, action).reward).round(5)  # unclipped
        array([-2.5    , -0.00625, -0.9    ], dtype=float32)
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        space = env.action_space
        if not isinstance(space, gym.spaces.Box):
            raise TypeError(f"{wrapper_name(self)}: expected a Box action space, got {space}")
        self._low, self._high = np.asarray(space.low), np.asarray(space.high)
        self._space = gym.spaces.Box(-np.inf, np.inf, space.shape, space.dtype)

    action_space = property(lambda self: self._space)  # type: ignore[assignment]

    def step(self, state: Any, action: Any) -> Step:
        a = jnp.asarray(action)
        low = jnp.asarray(self._low, dtype=a.dtype)
        high = jnp.asarray(self._high, dtype=a.dtype)
        return self.env.step(state, clip_action(a, low, high))
