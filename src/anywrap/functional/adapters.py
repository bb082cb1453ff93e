"""Adapters from Brax / Playground, gymnax and ``FuncEnv`` (none imported here); VmapWrapper."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap.shell.checks import whole_number, wrapper_name

from .core import FunctionalEnv, Step, Wrapper, batch_ndim, is_key_batch

__all__ = [
    "BraxEnv",
    "FuncEnvAdapter",
    "GymnaxEnv",
    "VmapWrapper",
    "from_brax",
    "from_func_env",
    "from_gymnax",
    "gymnax_to_gymnasium_space",
]


# Brax's and Playground's batching wrappers that take one key per env, by class name.
_KEY_BATCH_VMAPS = ("DomainRandomizationVmapWrapper", "BraxDomainRandomizationVmapWrapper")


def _brax_chain(env: Any) -> tuple[bool, int | None, bool, bool, str]:
    """What the Brax / Playground wrappers around ``env`` say: ``(batched, batch size, reset
    splits one key, autoreset, the wrappers outermost first, for error messages)``."""
    names: list[str] = []
    batched, batch_size, splits_key, e = False, None, False, env
    for _ in range(64):
        name = type(e).__name__
        names.append(name)
        if not batched and name == "VmapWrapper":
            batched, batch_size = True, getattr(e, "batch_size", None)
            splits_key = batch_size is not None
        elif not batched and name in _KEY_BATCH_VMAPS:
            batched, batch_size = True, _randomized_batch(e)
        nxt = getattr(e, "__dict__", {}).get("env")
        if nxt is None or nxt is e:
            break
        e = nxt
    return batched, batch_size, splits_key, any("AutoReset" in n for n in names), " > ".join(names)


def _randomized_batch(wrapper: Any) -> int | None:
    """The batch of a domain-randomisation vmap: the mapped axis of its vectorised model."""
    model = getattr(wrapper, "_sys_v", getattr(wrapper, "_mjx_model_v", None))
    in_axes = getattr(wrapper, "_in_axes", None)
    if model is None or in_axes is None:
        return None

    def size(ax: Any, x: Any) -> int | None:  # None: an axis not mapped
        return None if ax is None else int(np.shape(x)[ax])

    sizes = jax.tree.leaves(jax.tree.map(size, in_axes, model, is_leaf=lambda x: x is None))
    return sizes[0] if sizes else None


def _raw_key(owner: str, key: Any) -> jax.Array:
    """``key`` as Brax's raw ``uint32`` key data, ``(2,)`` or ``(n, 2)``."""
    shape, dtype = getattr(key, "shape", None), getattr(key, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        if shape is not None and len(shape) <= 1:
            return jax.random.key_data(key)
    elif dtype == np.uint32 and shape is not None and len(shape) in (1, 2) and shape[-1] == 2:
        return jnp.asarray(key)
    got = type(key).__name__ + ("" if shape is None else f" of shape {shape} and dtype {dtype}")
    raise TypeError(
        f"{owner}: expected a PRNG key (jax.random.key(0) or jax.random.PRNGKey(0)) "
        f"or a batch of them (jax.random.split(key, n)), got {got}"
    )


class BraxEnv:
    """A Brax / Playground env as a functional env (see :func:`from_brax`), its ``State`` the
    state: ``truncated`` is its ``info["truncation"]`` where done, ``terminated`` the rest of
    ``done``, ``info`` its ``metrics``."""

    def __init__(
        self,
        env: Any,
        *,
        num_envs: int | None = None,
        autoreset_mode: AutoresetMode | None = None,
    ) -> None:
        for name in ("reset", "step"):
            if not callable(getattr(env, name, None)):
                raise TypeError(f"from_brax: expected a Brax-like env with {name}(), got {env!r}")
        if num_envs is not None and (
            isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1
        ):
            raise ValueError(f"from_brax: num_envs must be a positive int, got {num_envs!r}")
        self.env = env
        chained, batch_size, splits_key, autoreset, self._seen = _brax_chain(env)
        # Batched: a vmap in the chain, or an env that batches itself (num_envs given).
        self.batched = chained or num_envs is not None
        self._key_per_env = chained and not splits_key
        self.num_envs: int | None = num_envs
        if not chained and num_envs is not None:
            state = jax.eval_shape(env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
            lead = {x.shape[0] if x.ndim else None for x in jax.tree.leaves(state.reward)}
            if lead != {num_envs}:
                raise ValueError(
                    f"from_brax: num_envs={num_envs}, but {self._seen} is not batched: its "
                    f"reward has shape {jax.tree.leaves(state.reward)[0].shape}. Batch it with "
                    "brax.envs.training.wrap (or Playground's wrap_for_brax_training), or wrap "
                    "the adapter in VmapWrapper"
                )
        elif chained and num_envs is None:
            self.num_envs = batch_size  # None: reset's keys set it
        elif batch_size is not None and batch_size != num_envs:
            raise ValueError(
                f"from_brax: num_envs={num_envs}, but {self._seen} holds a batch of {batch_size}"
            )
        default = AutoresetMode.SAME_STEP if autoreset else AutoresetMode.DISABLED
        self.autoreset_mode = default if autoreset_mode is None else autoreset_mode
        box = partial(gym.spaces.Box, -np.inf, np.inf, dtype=np.float32)
        size = env.observation_size
        if isinstance(size, int):
            self.observation_space: gym.Space = box((size,))
        else:  # MuJoCo Playground's dict observations: a shape by key
            self.observation_space = gym.spaces.Dict({k: box(tuple(v)) for k, v in size.items()})
        self.action_space = gym.spaces.Box(-1.0, 1.0, (env.action_size,), np.float32)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        owner = f"from_brax({type(self.env).__name__}).reset"
        key = _raw_key(owner, key)
        if key.ndim == 2 and not self._key_per_env:
            what = (
                "one key, which its VmapWrapper splits"
                if self.batched
                else "one key: the env is unbatched (wrap the adapter in VmapWrapper to batch it)"
            )
            raise ValueError(f"{owner}: expected {what}; got a batch of {key.shape[0]} keys")
        if key.ndim == 1 and self._key_per_env:
            if self.num_envs is None:
                raise ValueError(
                    f"{owner}: expected a batch of keys, one per env (jax.random.split(key, n)): "
                    f"the vmap of {self._seen} has no batch_size, so the number of keys sets the "
                    "batch; got one key. Or pass num_envs, e.g. from_brax(env, num_envs=256), to "
                    "split one key"
                )
            key = jax.random.split(key, self.num_envs)
        state = self.env.reset(key)
        return state.obs, state

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        done = s.done.astype(bool)
        trunc = s.info.get("truncation") if hasattr(s.info, "get") else None
        truncated = jnp.zeros_like(done) if trunc is None else trunc.astype(bool) & done
        return Step(s.obs, s, s.reward, done & ~truncated, truncated, dict(s.metrics))

    def __repr__(self) -> str:
        return f"<BraxEnv {type(self.env).__name__}>"


def from_brax(
    env: Any, *, num_envs: int | None = None, autoreset_mode: AutoresetMode | None = None
) -> BraxEnv:
    """Adapt a ``brax.envs.Env`` (or MuJoCo Playground ``MjxEnv``) to the functional protocol.

    * a bare env is one env that does not reset itself; compose it as
      ``VmapWrapper(AutoReset(from_brax(EpisodeWrapper(env, L, 1)), full_reset=False), n)``;
    * ``brax.envs.create(..., batch_size=n)``: the batch is read from its ``VmapWrapper``;
    * ``brax.envs.training.wrap(env)`` or Playground's ``wrap_for_brax_training(env)``:
      the number of keys given to ``reset`` sets the batch, or ``num_envs=n`` has
      ``reset`` split one key.

    Autoreset is read from the wrappers (no final observation); ``autoreset_mode`` overrides it.

    Example:
        >>> import jax
        >>> from brax import envs
        >>> from anywrap import functional as F
        >>> env = F.from_brax(envs.training.wrap(envs.get_environment("fast")))  # as ppo.train
        >>> env.autoreset_mode.name, env.reset(jax.random.split(jax.random.key(0), 4))[0].shape
        ('SAME_STEP', (4, 2))
    """
    return BraxEnv(env, num_envs=num_envs, autoreset_mode=autoreset_mode)


class GymnaxState(NamedTuple):
    env_state: Any
    key: jax.Array
    t: jax.Array  # the step count: step t draws from fold_in(key, t)


class GymnaxEnv:
    """A gymnax env as a functional env (SAME_STEP autoreset); with ``num_envs=n``, one
    ``jax.vmap`` over ``n`` envs, their keys split from one key each step (``reset`` also
    takes a shard's batch of keys)."""

    autoreset_mode = AutoresetMode.SAME_STEP

    def __init__(self, env: Any, params: Any = None, num_envs: int | None = None) -> None:
        if not hasattr(env, "step_env") or not hasattr(env, "default_params"):
            raise TypeError(f"from_gymnax: expected a gymnax Environment, got {env!r}")
        self.env = env
        self.params = env.default_params if params is None else params
        self.num_envs = (
            None if num_envs is None else whole_number("from_gymnax", "num_envs", num_envs, 1)
        )
        with jax.ensure_compile_time_eval():  # spaces are constants, even inside jit
            self.observation_space = gymnax_to_gymnasium_space(env.observation_space(self.params))
            self.action_space = gymnax_to_gymnasium_space(env.action_space(self.params))

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        owner = f"from_gymnax({self.env.name}).reset"
        _raw_key(owner, key)  # refuses what is no key, by name; the key is used as given
        if self.num_envs is None:
            if is_key_batch(key):
                raise ValueError(
                    f"{owner}: expected one key: the env is unbatched (pass num_envs to batch "
                    f"it); got a batch of {key.shape[0]} keys"
                )
            key, sub = jax.random.split(key)
            obs, st = self.env.reset(sub, self.params)
        else:
            if is_key_batch(key):  # one key per env: a shard of the batch
                keys, key = key, jax.random.fold_in(key[0], 0x5EED)
            else:
                key, sub = jax.random.split(key)
                keys = jax.random.split(sub, self.num_envs)
            obs, st = jax.vmap(self.env.reset, in_axes=(0, None))(keys, self.params)
        return obs, GymnaxState(st, key, jnp.zeros((), jnp.uint32))

    def step(self, state: GymnaxState, action: Any) -> Step:
        sub = jax.random.fold_in(state.key, state.t)
        if self.num_envs is None:
            out = self.env.step(sub, state.env_state, action, self.params)
        else:
            n = jax.tree.leaves(state.env_state)[0].shape[0]  # this shard's batch
            out = jax.vmap(self.env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(sub, n), state.env_state, action, self.params
            )
        if len(out) != 6:  # gymnax's API since 1.0
            raise TypeError(f"from_gymnax: step returned {len(out)} values; expected 6")
        obs, st, reward, terminated, truncated, info = out
        info = {k: v for k, v in info.items() if k not in ("terminated", "truncated")}
        if "final_observation" in info:
            info["final_obs"] = info.pop("final_observation")
        terminated, truncated = (jnp.asarray(x, dtype=bool) for x in (terminated, truncated))
        state = GymnaxState(st, state.key, state.t + 1)
        return Step(obs, state, jnp.asarray(reward), terminated, truncated, info)

    def __repr__(self) -> str:
        return f"<GymnaxEnv {self.env.name}>"


def from_gymnax(env: Any, params: Any = None, *, num_envs: int | None = None) -> GymnaxEnv:
    """Adapt a gymnax environment: one env, or with ``num_envs`` a batch of them.

    Example:
        >>> import gymnax, jax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=8)
        >>> env.reset(jax.random.key(0))[0].shape
        (8, 3)
    """
    return GymnaxEnv(env, params, num_envs)


def gymnax_to_gymnasium_space(space: Any) -> gym.Space:
    """The gymnasium equivalent of a gymnax Box / Discrete / Dict / Tuple space."""
    name = type(space).__name__
    if name == "Box":
        shape, dtype = tuple(space.shape), np.dtype(space.dtype)
        low, high = (np.broadcast_to(np.asarray(b, dtype), shape) for b in (space.low, space.high))
        return gym.spaces.Box(low, high, shape, dtype)
    if name == "Discrete":
        return gym.spaces.Discrete(int(space.n))
    if name == "Dict":
        return gym.spaces.Dict({k: gymnax_to_gymnasium_space(v) for k, v in space.spaces.items()})
    if name == "Tuple":
        return gym.spaces.Tuple(tuple(gymnax_to_gymnasium_space(v) for v in space.spaces))
    raise TypeError(f"gymnax space {space!r} has no gymnasium equivalent here")


class FuncEnvState(NamedTuple):
    env_state: Any
    key: jax.Array  # the next step's
    steps: jax.Array  # for the time limit


class FuncEnvAdapter:
    """A Gymnasium ``FuncEnv`` as a functional env (no autoreset)."""

    num_envs = None
    autoreset_mode = AutoresetMode.DISABLED

    def __init__(self, env: Any, max_episode_steps: int = 0, params: Any = None) -> None:
        for name in ("initial", "transition", "observation", "reward", "terminal"):
            if not callable(getattr(env, name, None)):
                raise TypeError(f"from_func_env: expected a gymnasium FuncEnv, got {env!r}")
        self.env = env
        self.params = getattr(env, "default_params", None) if params is None else params
        self.max_episode_steps = whole_number(
            "from_func_env", "max_episode_steps", max_episode_steps, 0
        )
        self.observation_space = env.observation_space
        self.action_space = env.action_space

    def _kw(self) -> dict[str, Any]:
        return {} if self.params is None else {"params": self.params}

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, k_init, k_obs = jax.random.split(key, 3)
        s = self.env.initial(k_init, **self._kw())
        obs = self.env.observation(s, k_obs, **self._kw())
        return obs, FuncEnvState(s, key, jnp.zeros((), jnp.int32))

    def step(self, state: FuncEnvState, action: Any) -> Step:
        key, k = jax.random.split(state.key)
        kw = self._kw()
        nxt = self.env.transition(state.env_state, action, k, **kw)
        reward = self.env.reward(state.env_state, action, nxt, k, **kw)
        terminated = jnp.asarray(self.env.terminal(nxt, k, **kw), dtype=bool)
        steps = state.steps + 1
        limit = self.max_episode_steps
        truncated = steps >= limit if limit > 0 else jnp.zeros_like(terminated)
        obs = self.env.observation(nxt, k, **kw)
        info = dict(self.env.transition_info(state.env_state, action, nxt, **kw))
        state = FuncEnvState(nxt, key, steps)
        return Step(obs, state, jnp.asarray(reward), terminated, truncated, info)

    def __repr__(self) -> str:
        return f"<FuncEnvAdapter {type(self.env).__name__}>"


def from_func_env(env: Any, max_episode_steps: int = 0, params: Any = None) -> FuncEnvAdapter:
    """Adapt a Gymnasium ``FuncEnv``; ``max_episode_steps > 0`` adds a time limit.

    Example:
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> env = from_func_env(PendulumFunctional(), max_episode_steps=200)
        >>> env.autoreset_mode.name  # wrap it in AutoReset to reset on done
        'DISABLED'
    """
    return FuncEnvAdapter(env, max_episode_steps, params)


class VmapWrapper(Wrapper):
    """A batch of ``num_envs`` copies of an unbatched env, stepped with one ``jax.vmap``
    (``reset`` splits ``key`` into ``num_envs`` keys, or takes a batch of keys).

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 3)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.num_envs, env.autoreset_mode.name, obs.shape
        (3, 'SAME_STEP', (3, 4))
    """

    def __init__(self, env: FunctionalEnv, num_envs: int) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        if batch_ndim(env):
            raise ValueError(
                f"{name}: the env is already batched (num_envs={env.num_envs}); "
                "wrap an unbatched env"
            )
        self._num_envs = whole_number(name, "num_envs", num_envs, 1)

    num_envs = property(lambda self: self._num_envs)  # type: ignore[assignment]
    batched = True  # type: ignore[assignment]

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        keys = key if is_key_batch(key) else jax.random.split(key, self._num_envs)
        return jax.vmap(self.env.reset)(keys)

    def step(self, state: Any, action: Any) -> Step:
        return jax.vmap(self.env.step)(state, action)
