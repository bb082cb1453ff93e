"""The functional environment protocol, the wrapper base classes, and what the shells share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar, runtime_checkable

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.spaces import Box, Discrete, MultiBinary, MultiDiscrete
from gymnasium.vector import AutoresetMode

from anywrap.distributed import jax_psum
from anywrap.shell.arrays import map_final_obs
from anywrap.shell.checks import step_values, wrapper_name
from anywrap.transforms.moments import Reduce
from anywrap.tree import first_leaf, tree_map
from anywrap.xp import describe, dtype_kind, resolve_dtype

__all__ = ["FunctionalEnv", "Step", "Wrapper", "batch_ndim", "find_state"]

AxisName = Any  # a shard_map / pmap / vmap axis name, or a tuple of them
S = TypeVar("S")


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
    """A pure, JAX-traceable env; the spaces are one env's, ``num_envs`` None for one env."""

    observation_space: Any
    action_space: Any
    num_envs: int | None
    autoreset_mode: AutoresetMode

    def reset(self, key: jax.Array) -> tuple[Any, Any]: ...

    def step(self, state: Any, action: Any) -> Step: ...


def batch_ndim(env: FunctionalEnv) -> int:
    """How many leading axes of obs / reward / done are batch axes: 0 or 1 (``num_envs``
    set, or ``batched = True`` where the reset keys set the size, as ``from_brax``'s)."""
    batched = getattr(env, "batched", None)
    return int(env.num_envs is not None if batched is None else bool(batched))


def find_state(state: Any, kind: type[S]) -> S:
    """The outermost state of type ``kind`` in a stack of wrapper states.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=4)
        >>> _, state = F.NormalizeReward(F.NormalizeObservation(env)).reset(jax.random.key(0))
        >>> F.find_state(state, F.NormalizeObservationState).obs_stats.mean.shape
        (3,)
    """
    while not isinstance(state, kind):
        if getattr(state, "inner", None) is None:
            raise LookupError(
                f"find_state: no {kind.__name__} in this state stack "
                f"(stopped at {type(state).__name__})"
            )
        state = state.inner
    return state


class Wrapper:
    """Base of functional wrappers: forwards everything to ``env``.

    A wrapper with state declares its NamedTuple ``state_type`` (``inner`` first) and
    places each other field in ``global_fields`` (statistics of the whole batch) or
    ``per_env_fields`` (one row per env), for :func:`shard_specs` and the checkpoints.
    """

    state_type: ClassVar[type | None] = None
    global_fields: ClassVar[tuple[str, ...]] = ()
    per_env_fields: ClassVar[tuple[str, ...]] = ()
    _obs_space: Any = None  # the space of a wrapper that changes it
    _act_space: Any = None

    def __init__(self, env: FunctionalEnv) -> None:
        # A Gymnasium env has the protocol's names, but not its reset(key) and step(state, a).
        if not isinstance(env, FunctionalEnv) or isinstance(env, gym.Env | gym.vector.VectorEnv):
            raise TypeError(
                f"{wrapper_name(self)}: expected a functional env (reset(key), "
                "step(state, action), observation_space, action_space, num_envs, "
                f"autoreset_mode), got {type(env).__qualname__}. Adapt it first with "
                "anywrap.functional.from_brax / from_gymnax / from_func_env."
            )
        self.env = env

    observation_space = property(
        lambda self: self.env.observation_space if self._obs_space is None else self._obs_space
    )
    action_space = property(
        lambda self: self.env.action_space if self._act_space is None else self._act_space
    )
    num_envs = property(lambda self: self.env.num_envs)
    batched = property(lambda self: bool(batch_ndim(self.env)))
    autoreset_mode = property(lambda self: self.env.autoreset_mode)

    @property
    def unwrapped(self) -> Any:
        """The innermost environment."""
        return self.env.unwrapped if isinstance(self.env, Wrapper) else self.env

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        return self.env.reset(key)

    def step(self, state: Any, action: Any) -> Step:
        return self.env.step(state, action)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.env!r}>"


class ObservationMap(Wrapper):
    """A wrapper whose ``_map`` maps ``obs`` and ``info["final_obs"]``."""

    _map: Callable[[Any], Any]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, state = self.env.reset(key)
        return self._map(obs), state

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        return s._replace(obs=self._map(s.obs), info=map_final_obs(s.info, self._map))


class ActionMap(Wrapper):
    """A wrapper whose ``_act`` maps the agent's (checked) action to the env's."""

    _act: Callable[[Any], Any]
    _checked = True

    def step(self, state: Any, action: Any) -> Step:
        if self._checked:
            action = checked_action(self, action)
        return self.env.step(state, self._act(action))


def checked_action(wrapper: Any, action: Any) -> Any:
    """``action`` as a JAX or host array of ``wrapper``'s action space behind the batch axes,
    or an error naming the wrapper (shapes are static: under ``jit``, once per trace)."""
    space = wrapper.action_space
    if not isinstance(space, Box | Discrete | MultiDiscrete | MultiBinary):  # a tree of spaces
        return action
    if isinstance(action, int | float | bool | list | tuple | np.generic):
        action = np.asarray(action)
    want, n = tuple(space.shape or ()), batch_ndim(wrapper)
    if not isinstance(action, np.ndarray | jax.Array):
        raise TypeError(
            f"{wrapper_name(wrapper)}: expected the action as a JAX array or a host value, "
            f"got {describe(action)}"
        )
    if action.ndim != n + len(want) or tuple(action.shape[n:]) != want or not dtype_kind(action):
        raise ValueError(
            f"{wrapper_name(wrapper)}: expected actions of real numbers or bools, of shape "
            f"{('num_envs',) * n + want} ({space}), got {describe(action)}"
        )
    return action


def checked_values(wrapper: Any, s: Step) -> Step:
    """``s`` with its reward and flags checked for the (shard-local) batch by ``step_values``,
    or an error naming ``wrapper`` (shapes are static: under ``jit``, once per trace)."""
    batch = batch_shape(wrapper.env, s.obs)
    reward = step_values(
        wrapper_name(wrapper), s.reward, s.terminated, s.truncated, batch[0] if batch else None
    )
    return s if reward is s.reward else s._replace(reward=reward)


class RewardMap(Wrapper):
    """A wrapper whose ``_reward`` maps every reward."""

    _reward: Callable[[Any], Any]

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        return s._replace(reward=self._reward(s.reward))


def same_step(env: FunctionalEnv) -> bool:
    """Whether ``env`` resets a finished episode within the step that ends it."""
    return bool(env.autoreset_mode == AutoresetMode.SAME_STEP)


def batch_shape(env: FunctionalEnv, obs: Any) -> tuple[int, ...]:
    """The batch shape of this (possibly shard-local) observation."""
    return tuple(first_leaf(obs).shape[: batch_ndim(env)])


def as_rows(env: FunctionalEnv, tree: Any) -> Any:
    """``tree`` with a batch axis: an unbatched env's values as a batch of one."""
    return tree if batch_ndim(env) else tree_map(lambda x: jnp.asarray(x)[None], tree)


def from_rows(env: FunctionalEnv, tree: Any) -> Any:
    """The inverse of :func:`as_rows`."""
    return tree if batch_ndim(env) else tree_map(lambda x: x[0], tree)


def once(x: Any) -> Any:
    """``x``, computed once: else XLA recomputes the env's math in each reduction reading it."""
    return jax.lax.optimization_barrier(x)


def constant(value: Any) -> jax.Array:
    """A NumPy constant as a JAX array (float64 held as float32 without x64)."""
    value = np.asarray(value)
    return jnp.asarray(value, dtype=resolve_dtype(jnp, value.dtype.name))


def psum(axis_name: AxisName | None) -> Reduce | None:
    """The transforms' ``reduce`` hook for ``axis_name`` (None: no mapped axis)."""
    return None if axis_name is None else jax_psum(axis_name)


def is_key_batch(key: jax.Array) -> bool:
    """Whether ``key`` is a batch of PRNG keys (typed ``(n,)`` or raw ``(n, 2)``)."""
    return bool(key.ndim == (1 if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key) else 2))


def split_key(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(key, sub)``: one key split in two, or each key of a batch split in two."""
    split = jax.vmap(jax.random.split, out_axes=1) if is_key_batch(key) else jax.random.split
    key, sub = split(key)
    return key, sub


def wrapper_key(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(the env's key, the wrapper's raw key data)`` split from ``reset``'s key."""
    key, mine = split_key(key)
    if is_key_batch(mine):
        mine = mine[0]
    if jax.dtypes.issubdtype(mine.dtype, jax.dtypes.prng_key):
        mine = jax.random.key_data(mine)
    return key, mine
