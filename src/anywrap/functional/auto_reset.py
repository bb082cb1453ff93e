"""AutoReset: Gymnasium's SAME_STEP autoreset for a functional env that does not reset itself."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode

from anywrap.transforms.time_limit import select_rows

from .core import FunctionalEnv, Step, Wrapper, split_key

__all__ = ["AutoReset", "AutoResetState", "CachedResetState"]


class AutoResetState(NamedTuple):
    """State of :class:`AutoReset`: the env's state and the key of the next reset."""

    inner: Any
    key: jax.Array


class CachedResetState(NamedTuple):
    """State of ``AutoReset(full_reset=False)``: the env's state and the first observation
    and state that a finished episode restarts from."""

    inner: Any
    first_obs: Any
    first_inner: Any


class AutoReset(Wrapper):
    """Reset a finished episode in the same step (Gymnasium's SAME_STEP autoreset).

    Where an episode ends, ``obs`` and the state are a fresh episode's and
    ``info["final_obs"]`` is the finished one's last observation. Place it over
    the env and its ``TimeLimit`` and below every other wrapper: everything in
    the state it wraps is reset on done.

    * ``full_reset=True`` (the default): every step calls the env's ``reset``
      with a fresh key for every env, as Gymnasium does; on MJX that halves
      the throughput of the bare env.
    * ``full_reset=False``: each env restarts from its first observation and
      state from ``reset``, as Brax's ``AutoResetWrapper`` does: about the bare
      env's speed, but every episode of an env starts from the same state, any
      key the env carries in it included.

    Example:
        Gymnasium's functional Pendulum, truncated after 3 steps:

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

        With ``full_reset=False`` the second episode starts where the first did:

        >>> env = F.AutoReset(env.env, full_reset=False)
        >>> first, state = env.reset(jax.random.key(0))
        >>> for _ in range(3):
        ...     s = env.step(state, jnp.zeros(1))
        ...     state = s.state
        >>> bool((s.obs == first).all())
        True
    """

    state_type: ClassVar[type | None] = AutoResetState
    per_env_fields: ClassVar[tuple[str, ...]] = ("key",)

    def __init__(self, env: FunctionalEnv, *, full_reset: bool = True) -> None:
        super().__init__(env)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                f"AutoReset: the env already resets itself ({env.autoreset_mode}); "
                "wrapping it again would reset twice"
            )
        if not isinstance(full_reset, bool):
            raise TypeError(f"AutoReset: expected full_reset to be a bool, got {full_reset!r}")
        self.full_reset = full_reset
        if not full_reset:  # declared on the instance, for shard_specs
            self.state_type = CachedResetState  # type: ignore[misc]
            self.per_env_fields = ("first_obs", "first_inner")  # type: ignore[misc]

    autoreset_mode = property(lambda self: AutoresetMode.SAME_STEP)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        if not self.full_reset:
            obs, inner = self.env.reset(key)
            return obs, CachedResetState(inner, obs, inner)
        key, sub = split_key(key)
        obs, inner = self.env.reset(sub)
        return obs, AutoResetState(inner, key)

    def step(self, state: AutoResetState | CachedResetState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        if isinstance(state, CachedResetState):  # full_reset=False
            fresh: Any = (state.first_obs, state.first_inner)
            new_state: Any = state
        else:
            key, sub = split_key(state.key)
            fresh, new_state = self.env.reset(sub), AutoResetState(inner, key)
        done = jnp.logical_or(terminated, truncated)
        new_obs, new_inner = jax.tree.map(partial(select_rows, done), fresh, (obs, inner))
        new_state = new_state._replace(inner=new_inner)
        info = {**info, "final_obs": obs}
        return Step(new_obs, new_state, reward, terminated, truncated, info)
