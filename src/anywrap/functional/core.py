"""The functional environment protocol, the wrapper base class, batching and autoreset.

A functional environment is an object with two pure methods and four attributes::

    env.reset(key)          -> (obs, state)
    env.step(state, action) -> Step(obs, state, reward, terminated, truncated, info)

    env.observation_space   # gymnasium space of ONE environment's observation
    env.action_space        # gymnasium space of ONE environment's action
    env.num_envs            # None for one environment, N for a batch of N
    env.autoreset_mode      # gymnasium.vector.AutoresetMode.SAME_STEP or DISABLED

``state`` is any JAX pytree. Randomness lives in it: ``reset`` takes the only
key, and an environment that needs fresh randomness each step carries its own
key in its state and splits it. So a rollout is a plain ``lax.scan`` over
``step`` with nothing but the state in the carry.

A wrapper's own state rides inside the environment state: a stateful wrapper
returns ``XState(inner=<the wrapped env's state>, ...)``, a NamedTuple, so the
whole stack is one pytree that ``jax.jit``, ``jax.vmap`` and ``jax.lax.scan``
carry as is. :func:`find_state` digs a wrapper's state out of the stack.

Example:
    >>> import jax, gymnax
    >>> from anywrap import functional as F
    >>> env = F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), num_envs=8)
    >>> obs, state = env.reset(jax.random.key(0))
    >>> step = env.step(state, jax.numpy.zeros((8, 1)))
    >>> step.obs.shape, step.reward.shape
    ((8, 3), (8,))
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode

__all__ = [
    "AutoReset",
    "AutoResetState",
    "FunctionalEnv",
    "Step",
    "VmapWrapper",
    "Wrapper",
    "batch_ndim",
    "find_state",
]


class Step(NamedTuple):
    """What :meth:`FunctionalEnv.step` returns (unpacks like Gymnasium's 5-tuple plus state)."""

    obs: Any
    state: Any
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    info: dict[str, Any]


@runtime_checkable
class FunctionalEnv(Protocol):
    """A pure environment: explicit state in, explicit state out.

    ``reset`` and ``step`` must be traceable by JAX: no Python branching on
    array values, no side effects that matter.
    """

    observation_space: Any
    action_space: Any
    num_envs: int | None
    autoreset_mode: AutoresetMode

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        """Start a new episode (every episode of a batch) from the PRNG ``key``."""
        ...

    def step(self, state: Any, action: Any) -> Step:
        """Advance by one step."""
        ...


def batch_ndim(env: FunctionalEnv) -> int:
    """How many leading axes of obs / reward / done are batch axes: 0 or 1."""
    return 0 if env.num_envs is None else 1


S = TypeVar("S")


def find_state(state: Any, kind: type[S]) -> S:
    """The outermost state of type ``kind`` in a stack of wrapper states.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4)
        >>> env = F.NormalizeReward(F.NormalizeObservation(env))
        >>> _, state = env.reset(jax.random.key(0))
        >>> type(state).__name__, type(state.inner).__name__
        ('NormalizeRewardState', 'NormalizeObservationState')
        >>> stats = F.find_state(state, F.NormalizeObservationState).obs_stats
        >>> round(float(stats.count), 4)  # the 4 reset observations (and the 1e-4 prior)
        4.0001
    """
    s = state
    while True:
        if isinstance(s, kind):
            return s
        inner = getattr(s, "inner", None)
        if inner is None:
            raise LookupError(
                f"find_state: no {kind.__name__} in this state stack "
                f"(stopped at {type(s).__name__})"
            )
        s = inner


class Wrapper:
    """Base of functional wrappers: forwards everything to ``env``.

    A subclass overrides ``reset`` / ``step`` and, when it changes them, the
    spaces. Wrappers hold configuration only; all changing values live in the
    state pytree.
    """

    def __init__(self, env: FunctionalEnv) -> None:
        if not isinstance(env, FunctionalEnv):
            raise TypeError(
                f"{type(self).__name__}: expected a functional env (reset(key), "
                "step(state, action), observation_space, action_space, num_envs, "
                f"autoreset_mode), got {type(env).__qualname__}. Adapt it first with "
                "anywrap.functional.from_brax / from_gymnax / from_func_env."
            )
        self.env = env

    observation_space = property(lambda self: self.env.observation_space)
    action_space = property(lambda self: self.env.action_space)
    num_envs = property(lambda self: self.env.num_envs)
    autoreset_mode = property(lambda self: self.env.autoreset_mode)

    @property
    def unwrapped(self) -> Any:
        """The innermost environment."""
        env: Any = self.env
        return env.unwrapped if isinstance(env, Wrapper) else env

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        return self.env.reset(key)

    def step(self, state: Any, action: Any) -> Step:
        return self.env.step(state, action)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.env!r}>"


def _is_key_batch(key: jax.Array) -> bool:
    """Whether ``key`` is a batch of PRNG keys (typed ``(n,)`` or raw ``(n, 2)``)."""
    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key.ndim == 1
    return key.ndim == 2


class VmapWrapper(Wrapper):
    """A batch of ``num_envs`` copies of an unbatched env, stepped with one ``jax.vmap``.

    ``reset(key)`` splits ``key`` into ``num_envs`` keys; it also accepts a
    batch of keys (one per env, any count), which is how a shard of the batch
    is reset inside ``shard_map``.

    Wrappers applied *outside* a VmapWrapper see the whole batch, so their
    statistics are shared by all its environments.

    Example:
        Three CartPoles, each reset from its own key:

        >>> import jax, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> env = F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 3)
        >>> env.num_envs, env.autoreset_mode.name
        (3, 'SAME_STEP')
        >>> obs, state = env.reset(jax.random.key(0))
        >>> np.asarray(obs).round(3)
        array([[-0.04 , -0.016, -0.037,  0.031],
               [-0.041, -0.014,  0.012, -0.034],
               [ 0.025, -0.015,  0.025, -0.023]], dtype=float32)
    """

    def __init__(self, env: FunctionalEnv, num_envs: int) -> None:
        super().__init__(env)
        if env.num_envs is not None:
            raise ValueError(
                f"VmapWrapper: the env is already batched (num_envs={env.num_envs}); "
                "wrap an unbatched env"
            )
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"VmapWrapper: num_envs must be a positive int, got {num_envs!r}")
        self._num_envs = num_envs

    num_envs = property(lambda self: self._num_envs)  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        keys = key if _is_key_batch(key) else jax.random.split(key, self._num_envs)
        return jax.vmap(self.env.reset)(keys)

    def step(self, state: Any, action: Any) -> Step:
        return jax.vmap(self.env.step)(state, action)


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
        obs0, inner0 = self.env.reset(sub)

        def pick(fresh: jax.Array, old: jax.Array) -> jax.Array:
            d = jnp.reshape(done, done.shape + (1,) * (old.ndim - done.ndim))
            return jnp.where(d, fresh, old)

        new_obs = jax.tree.map(pick, obs0, obs)
        new_inner = jax.tree.map(pick, inner0, inner)
        info = {**info, "final_obs": obs}
        return Step(new_obs, AutoResetState(new_inner, key), reward, terminated, truncated, info)
