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
    """State of :class:`AutoReset` (``full_reset=True``): the env's state and the key for
    the next reset."""

    inner: Any
    key: jax.Array


class CachedResetState(NamedTuple):
    """State of :class:`AutoReset` with ``full_reset=False``: the env's state, and its first
    observation and state, which a finished episode restarts from."""

    inner: Any
    first_obs: Any
    first_inner: Any


class AutoReset(Wrapper):
    """Reset a finished episode in the same step (Gymnasium's SAME_STEP autoreset).

    On a step that ends an episode, the returned ``obs`` and state are those of
    a fresh episode, and ``info["final_obs"]`` holds the last observation of
    the finished one (for every env; meaningful where terminated or truncated).

    Place it over the environment and its ``TimeLimit``, if any, and below
    ``VmapWrapper`` and every other anywrap wrapper: everything in the state it
    wraps is reset on done (a time limit's step count should be; statistics
    should not). Over an env that is a batch already and takes one key per env
    (Brax's ``VmapWrapper`` without ``batch_size``), ``reset`` takes a batch of
    keys and each env's key is split as ``VmapWrapper(AutoReset(env))`` would.

    Two ways to start the new episode, chosen by ``full_reset``:

    * ``full_reset=True`` (the default): call the env's ``reset`` with a fresh
      key, every step, for every env (``jax.vmap`` and ``jnp.where`` cannot
      skip the envs that are not done). Every episode starts from a new random
      state, as in Gymnasium. It costs one ``reset`` per ``step``: on an MJX
      env, whose reset runs the physics' forward pass, that is about half the
      throughput of the bare env.
    * ``full_reset=False``: keep each env's first observation and state from
      ``reset``, and swap them in where an episode ends, as Brax's
      ``AutoResetWrapper`` and MuJoCo Playground's ``BraxAutoResetWrapper``
      (its default) do. A step then costs the env's step and one select:
      about the bare env's speed. But each env restarts every episode from
      the same state: the randomness of the initial states is the batch's,
      drawn once at ``reset``. The env's whole state returns to its first
      value, a random key it carries included, so an env that draws noise
      during an episode from a key in its state repeats the same draws in
      each episode of that env: use the full reset there (Playground keeps
      its ``info`` for that reason, which a generic state cannot tell apart).
      A ``reset`` of the stack draws new initial states.

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

        With ``full_reset=False`` the second episode starts where the first did
        (step 3 shows the reset observation again), and so replays it:

        >>> env = F.AutoReset(
        ...     F.from_func_env(PendulumFunctional(), max_episode_steps=3), full_reset=False
        ... )
        >>> first, state = env.reset(jax.random.key(0))
        >>> np.asarray(first).round(3)
        array([-0.999, -0.046, -0.958], dtype=float32)
        >>> for t in range(1, 5):
        ...     s = env.step(state, jnp.zeros(1))
        ...     state = s.state
        ...     print(t, bool(s.truncated), np.asarray(s.obs).round(3))
        1 False [-1.     0.004 -0.993]
        2 False [-0.999  0.053 -0.99 ]
        3 True [-0.999 -0.046 -0.958]
        4 False [-1.     0.004 -0.993]
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
        if not full_reset:  # the other state: declared on the instance (see shard_specs)
            self.state_type = CachedResetState  # type: ignore[misc]
            self.per_env_fields = ("first_obs", "first_inner")  # type: ignore[misc]

    autoreset_mode = property(lambda self: AutoresetMode.SAME_STEP)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        if not self.full_reset:
            obs, inner = self.env.reset(key)
            return obs, CachedResetState(inner, obs, inner)
        key, sub = split_key(key)  # a batch of keys: one pair per env
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
        # jax.tree.map: the env's state may be any pytree (a flax dataclass, say)
        done = jnp.logical_or(terminated, truncated)
        new_obs, new_inner = jax.tree.map(partial(select_rows, done), fresh, (obs, inner))
        new_state = new_state._replace(inner=new_inner)
        info = {**info, "final_obs": obs}
        return Step(new_obs, new_state, reward, terminated, truncated, info)
