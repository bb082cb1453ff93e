"""AutoReset: Gymnasium's SAME_STEP autoreset for a functional env that does not reset itself."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode

from anywrap.transforms.time_limit import select_rows

from .core import FunctionalEnv, Step, Wrapper

__all__ = ["AutoReset", "AutoResetState"]


class AutoResetState(NamedTuple):
    """State of :class:`AutoReset`: the env's state and the key for the next reset."""

    inner: Any
    key: jax.Array


class AutoReset(Wrapper):
    """Reset a finished episode in the same step (Gymnasium's SAME_STEP autoreset).

    On a step that ends an episode, the returned ``obs`` and state are those of
    a fresh episode, and ``info["final_obs"]`` holds the last observation of
    the finished one (for every env; meaningful where terminated or truncated).

    Place it directly over the environment (below VmapWrapper and any anywrap
    wrapper): everything in the state it wraps is reset on done.

    Example:
        Gymnasium's functional Pendulum, truncated after 3 steps: on step 3
        ``obs`` is a fresh episode's and ``final_obs`` the old one's last.

        >>> import jax, jax.numpy as jnp
        >>> import numpy as np
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.from_func_env(PendulumFunctional(), max_episode_steps=3))
        >>> env.autoreset_mode.name
        'SAME_STEP'
        >>> _, state = env.reset(jax.random.key(0))
        >>> for t in range(1, 5):
        ...     s = env.step(state, jnp.zeros(1))
        ...     state = s.state
        ...     obs, final = np.asarray(s.obs).round(3), np.asarray(s.info["final_obs"]).round(3)
        ...     print(t, bool(s.truncated), obs, final)
        1 False [-0.859 -0.511 -0.681] [-0.859 -0.511 -0.681]
        2 False [-0.885 -0.465 -1.064] [-0.885 -0.465 -1.064]
        3 True [ 0.98  -0.2    0.152] [-0.916 -0.401 -1.413]
        4 False [ 0.98  -0.2    0.002] [ 0.98  -0.2    0.002]
    """

    state_type = AutoResetState
    per_env_fields = ("key",)

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                f"AutoReset: the env already resets itself ({env.autoreset_mode}); "
                "wrapping it again would reset twice"
            )

    autoreset_mode = property(lambda self: AutoresetMode.SAME_STEP)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, sub = jax.random.split(key)
        obs, inner = self.env.reset(sub)
        return obs, AutoResetState(inner, key)

    def step(self, state: AutoResetState, action: Any) -> Step:
        key, sub = jax.random.split(state.key)
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        done = jnp.logical_or(terminated, truncated)
        fresh_obs, fresh_inner = self.env.reset(sub)
        # jax.tree.map: the env's state may be any pytree (a flax dataclass, say)
        new_obs, new_inner = jax.tree.map(
            partial(select_rows, done), (fresh_obs, fresh_inner), (obs, inner)
        )
        info = {**info, "final_obs": obs}
        return Step(new_obs, AutoResetState(new_inner, key), reward, terminated, truncated, info)
