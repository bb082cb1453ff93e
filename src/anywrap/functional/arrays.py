"""Pure, jittable array wrappers: the stateless maps, time limits, time features,
delayed observations and sticky actions.

Each is a thin shell over :mod:`anywrap.transforms`, so the numbers are those
of the ``anywrap`` and ``anywrap.vector`` shells. The stateless ones
(RescaleAction, RescaleObservation, ClipReward, DtypeObservation,
FlattenObservation, ReshapeObservation) pass the state through and map
``info["final_obs"]`` too. The stateful ones keep their state inside the env
state, as ``XState(inner=..., ...)``:

* :class:`TimeLimit` counts each environment's steps. It must sit *below*
  :class:`~anywrap.functional.AutoReset` (over a DISABLED env), so that the
  episodes it truncates are reset with the others; over an env that resets
  itself it is refused.
* :class:`TimeAwareObservation` and :class:`DelayObservation` restart with the
  episodes (in SAME_STEP mode ``info["final_obs"]`` gets the old episode's
  values).
* :class:`StickyAction` keeps its own PRNG key in its state, split from the
  key given to ``reset``, so a rollout is reproducible from that key.

Example:
    >>> import jax, gymnax
    >>> from anywrap import functional as F
    >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=8)
    >>> env = F.TimeAwareObservation(F.RescaleAction(env, -1.0, 1.0), max_timesteps=200)
    >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
    >>> step = jax.jit(env.step)(state, jax.numpy.zeros((8, 1)))
    >>> step.obs.shape, step.obs[:, -1].tolist() == [1.0] * 8
    ((8, 4), True)
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode

from anywrap.shell.arrays import rescaled_box
from anywrap.shell.checks import wrapper_name
from anywrap.shell.time import TimeAwareArguments, check_max_episode_steps
from anywrap.transforms import arrays, delay, rescale, sticky, time
from anywrap.tree import first_leaf, tree_map
from anywrap.wrappers.arrays import check_reward_bounds, dtype_space, reshape_space
from anywrap.wrappers.delay import check_delay, zero_observation
from anywrap.wrappers.sticky import check_sticky, sample_action
from anywrap.xp import (
    _jax_random,  # noqa: F401  (the JAX draws of sticky actions)
    resolve_dtype,
)

from .core import FunctionalEnv, Step, Wrapper, batch_ndim

__all__ = [
    "ClipReward",
    "DelayObservation",
    "DelayObservationState",
    "DtypeObservation",
    "FlattenObservation",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "StickyAction",
    "StickyActionState",
    "TimeAwareObservation",
    "TimeAwareObservationState",
    "TimeLimit",
    "TimeLimitState",
]


def _batch(env: FunctionalEnv, obs: Any) -> tuple[int, ...]:
    return tuple(first_leaf(obs).shape[: batch_ndim(env)])


def _with_final(info: dict[str, Any], fn: Any) -> dict[str, Any]:
    return {**info, "final_obs": fn(info["final_obs"])} if "final_obs" in info else info


# ------------------------------------------------------------------ stateless
class _ObservationMap(Wrapper):
    """Maps ``obs`` and ``info["final_obs"]`` with ``self._map``."""

    _space: gym.Space

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self._space

    def _map(self, obs: Any) -> Any:
        raise NotImplementedError

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, state = self.env.reset(key)
        return self._map(obs), state

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        return s._replace(obs=self._map(s.obs), info=_with_final(s.info, self._map))


class RescaleObservation(_ObservationMap):
    """Affinely rescale a Box observation to ``[min_obs, max_obs]``: ``g * obs + c``.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.RescaleObservation(env, -1.0, 1.0)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> env.observation_space, bool((abs(obs) <= 1).all())
        (Box(-1.0, 1.0, (3,), float32), True)
    """

    def __init__(self, env: FunctionalEnv, min_obs: Any, max_obs: Any) -> None:
        super().__init__(env)
        self._space, self._g, self._c = rescaled_box(
            "anywrap.functional.RescaleObservation", env.observation_space, min_obs, max_obs, "obs"
        )

    def _map(self, obs: Any) -> Any:
        return rescale.affine(jnp.asarray(obs), *_consts(self._g, self._c))


def _consts(*values: np.ndarray) -> tuple[jax.Array, ...]:
    """NumPy constants as JAX arrays (float64 held as float32 without x64)."""
    return tuple(jnp.asarray(v, dtype=resolve_dtype(jnp, v.dtype.name)) for v in values)


class DtypeObservation(_ObservationMap):
    """Cast every observation to ``dtype``.

    Example:
        >>> import jax, gymnax
        >>> import numpy as np
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.DtypeObservation(env, np.float16)
        >>> env.reset(jax.random.key(0))[0].dtype
        dtype('float16')
    """

    def __init__(self, env: FunctionalEnv, dtype: Any) -> None:
        super().__init__(env)
        self._space = dtype_space(
            "anywrap.functional.DtypeObservation", env.observation_space, dtype
        )
        self.dtype = dtype

    def _map(self, obs: Any) -> Any:
        return arrays.cast(jnp.asarray(obs), resolve_dtype(jnp, np.dtype(self._space.dtype).name))


class FlattenObservation(_ObservationMap):
    """Flatten every observation (Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple).

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.FlattenObservation(F.ReshapeObservation(env, (3, 1)))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3,), (2, 3))
    """

    def __init__(self, env: FunctionalEnv) -> None:
        super().__init__(env)
        self._plan = arrays.flatten_plan(
            env.observation_space, "anywrap.functional.FlattenObservation"
        )
        self._space = gym.spaces.utils.flatten_space(env.observation_space)

    def _map(self, obs: Any) -> Any:
        obs = tree_map(jnp.asarray, obs)
        return arrays.flatten_observation(obs, self._plan, batch_ndim(self.env))


class ReshapeObservation(_ObservationMap):
    """Reshape every Box observation to ``shape``.

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ReshapeObservation(env, (3, 1))
        >>> env.observation_space.shape, env.reset(jax.random.key(0))[0].shape
        ((3, 1), (2, 3, 1))
    """

    def __init__(self, env: FunctionalEnv, shape: tuple[int, ...]) -> None:
        super().__init__(env)
        self._space = reshape_space(
            "anywrap.functional.ReshapeObservation", env.observation_space, shape
        )
        self.shape = shape

    def _map(self, obs: Any) -> Any:
        return arrays.reshape_observation(
            jnp.asarray(obs), tuple(self._space.shape or ()), batch_ndim(self.env)
        )


class RescaleAction(Wrapper):
    """Affinely rescale a Box action space to ``[min_action, max_action]``: the env gets
    ``(action - c) / g``.

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
        self._space, self._g, self._c = rescaled_box(
            "anywrap.functional.RescaleAction", env.action_space, min_action, max_action, "action"
        )

    action_space = property(lambda self: self._space)  # type: ignore[assignment]

    def step(self, state: Any, action: Any) -> Step:
        a = rescale.affine_inverse(jnp.asarray(action), *_consts(self._g, self._c))
        return self.env.step(state, a)


class ClipReward(Wrapper):
    """Clip every reward to ``[min_reward, max_reward]`` (either may be ``None``).

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.ClipReward(env, -1.0, None)
        >>> _, state = env.reset(jax.random.key(0))
        >>> reward = env.step(state, jnp.zeros((2, 1))).reward
        >>> bool((reward >= -1).all())
        True
    """

    def __init__(self, env: FunctionalEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        super().__init__(env)
        check_reward_bounds("anywrap.functional.ClipReward", min_reward, max_reward)
        self.min_reward, self.max_reward = min_reward, max_reward

    def step(self, state: Any, action: Any) -> Step:
        s = self.env.step(state, action)
        low, high = (
            b if b is None or isinstance(b, float | int) else _consts(np.asarray(b))[0]
            for b in (self.min_reward, self.max_reward)
        )
        return s._replace(reward=arrays.clip_reward(s.reward, low, high))


# ------------------------------------------------------------------- stateful
class TimeLimitState(NamedTuple):
    """State of :class:`TimeLimit`: the inner state and each environment's clock."""

    inner: Any
    clock: time.Clock


class TimeLimit(Wrapper):
    """Truncate each environment's episode once it has taken ``max_episode_steps`` steps.

    Place it below :class:`~anywrap.functional.AutoReset`, over an env that
    does not reset itself, e.g.
    ``AutoReset(TimeLimit(from_func_env(env), 500))``: the autoreset then
    starts a new episode (and a new count) wherever the limit truncates.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.TimeLimit(F.from_func_env(PendulumFunctional()), 3))
        >>> _, state = env.reset(jax.random.key(0))
        >>> truncated = []
        >>> for _ in range(4):
        ...     step = env.step(state, jnp.zeros((1,)))
        ...     state = step.state
        ...     truncated.append(bool(step.truncated))
        >>> truncated
        [False, False, True, False]
    """

    def __init__(self, env: FunctionalEnv, max_episode_steps: int) -> None:
        super().__init__(env)
        max_episode_steps = check_max_episode_steps(wrapper_name(self), max_episode_steps)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                "anywrap.functional.TimeLimit: the env resets itself "
                f"({env.autoreset_mode}), so it would not reset the episodes the limit "
                "truncates; place TimeLimit below AutoReset, over an env that does not "
                "reset itself"
            )
        self.max_episode_steps = max_episode_steps

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        return obs, TimeLimitState(inner, time.init_clock(_batch(self.env, obs), xp=jnp))

    def step(self, state: TimeLimitState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        clock, truncated, _ = time.time_limit(
            state.clock, terminated, truncated, max_steps=self.max_episode_steps
        )
        return Step(obs, TimeLimitState(inner, clock), reward, terminated, truncated, info)


def _mode(env: FunctionalEnv) -> str:
    return "same_step" if env.autoreset_mode == AutoresetMode.SAME_STEP else "disabled"


class TimeAwareObservationState(NamedTuple):
    """State of :class:`TimeAwareObservation`: the inner state and each environment's clock."""

    inner: Any
    clock: time.Clock


class TimeAwareObservation(TimeAwareArguments, Wrapper):
    """Add each environment's episode step count to its observation.

    The arguments are Gymnasium's; ``max_timesteps`` comes from a
    :class:`TimeLimit` below in the stack, or is given. In SAME_STEP mode the
    new episode's observation shows time 0 and ``info["final_obs"]`` the old
    episode's last count.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.TimeLimit(F.from_func_env(PendulumFunctional()), 3))
        >>> env = F.TimeAwareObservation(env, normalize_time=True)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> times = [float(obs[-1])]
        >>> for _ in range(4):
        ...     step = env.step(state, jnp.zeros((1,)))
        ...     state = step.state
        ...     times.append(round(float(step.obs[-1]), 3))
        >>> times  # the third step truncates: the new episode starts at 0
        [0.0, 0.333, 0.667, 0.0, 0.333]
    """

    def _wrap(self, env: FunctionalEnv) -> tuple[gym.Space, int]:
        Wrapper.__init__(self, env)
        return env.observation_space, batch_ndim(env)

    def _max_steps(self, env: FunctionalEnv) -> int:
        inner: Any = env
        while inner is not None and not isinstance(inner, TimeLimit):
            inner = getattr(inner, "env", None)
        if inner is None:
            raise ValueError(
                f"{wrapper_name(self)}: give `max_timesteps`, or place a TimeLimit below this "
                "wrapper"
            )
        return int(inner.max_episode_steps)

    def _start(self, space: gym.Space, feature: time.TimeFeature) -> None:
        self._space = space
        self._step = partial(time.time_aware, feature=feature, autoreset=_mode(self.env))
        self._reset = partial(time.time_aware_reset, feature=feature)

    @property
    def observation_space(self) -> Any:  # type: ignore[override]
        return self._space

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        clock, out = self._reset(time.init_clock(_batch(self.env, obs), xp=jnp), obs)
        return out, TimeAwareObservationState(inner, clock)

    def step(self, state: TimeAwareObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        final = info.get("final_obs")
        clock, out, final = self._step(state.clock, obs, terminated, truncated, final)
        if final is not None:
            info = {**info, "final_obs": final}
        return Step(
            out, TimeAwareObservationState(inner, clock), reward, terminated, truncated, info
        )


class DelayObservationState(NamedTuple):
    """State of :class:`DelayObservation`: the inner state and the ring of observations."""

    inner: Any
    delay: delay.DelayState


class DelayObservation(Wrapper):
    """Return each environment's observation of ``delay`` steps ago (the space's zero
    until its episode has one); in SAME_STEP mode ``info["final_obs"]`` is delayed too.

    Example:
        >>> import jax, gymnax
        >>> import jax.numpy as jnp
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> first, _ = bare.reset(jax.random.key(0))
        >>> env = F.DelayObservation(bare, delay=1)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> float(abs(obs).sum())  # nothing one step back yet
        0.0
        >>> bool((env.step(state, jnp.zeros((2, 1))).obs == first).all())
        True
    """

    def __init__(self, env: FunctionalEnv, delay: int) -> None:
        super().__init__(env)
        name = "anywrap.functional.DelayObservation"
        self.delay = check_delay(name, delay)
        self._zero = zero_observation(name, env.observation_space)

    def _zero_jax(self) -> Any:
        return tree_map(lambda z: _consts(np.asarray(z))[0], self._zero)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        zero = self._zero_jax()
        s = delay.init_delay(zero, delay=self.delay, batch_shape=_batch(self.env, obs), xp=jnp)
        s, out = delay.reset_delay(s, obs, zero)
        return out, DelayObservationState(inner, s)

    def step(self, state: DelayObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        zero = self._zero_jax()
        if self.env.autoreset_mode == AutoresetMode.SAME_STEP:
            final = info.get("final_obs", obs)
            s, out, final = delay.delay_with_final(
                state.delay, obs, final, terminated, truncated, zero
            )
            if "final_obs" in info:
                info = {**info, "final_obs": final}
        else:
            s, out = delay.delay_observation(state.delay, obs, zero)
        return Step(out, DelayObservationState(inner, s), reward, terminated, truncated, info)


class StickyActionState(NamedTuple):
    """State of :class:`StickyAction`: the inner state, the state machine and its key."""

    inner: Any
    sticky: sticky.StickyState
    key: jax.Array
    """Raw ``threefry2x32`` key data (two ``uint32`` words)."""


class StickyAction(Wrapper):
    """With probability ``repeat_action_probability`` the env gets the previous action again,
    for a run of ``repeat_action_duration`` steps (an int or an inclusive range).

    The key comes from ``reset(key)``: it is split into the env's and the
    wrapper's, so a rollout is reproducible from that one key (and the env
    sees another reset key than it would unwrapped). In SAME_STEP mode an
    environment forgets its last action when its episode ends.

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
        self._sample = sample_action(name, env.action_space, ())

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        key, mine = jax.random.split(key)
        obs, inner = self.env.reset(key)
        batch = _batch(self.env, obs)
        sample = tree_map(
            lambda a: jnp.zeros(batch + a.shape, dtype=resolve_dtype(jnp, a.dtype.name)),
            self._sample,
        )
        s = sticky.init_sticky(sample, batch_shape=batch, xp=jnp)
        if jax.dtypes.issubdtype(mine.dtype, jax.dtypes.prng_key):
            mine = jax.random.key_data(mine)
        return obs, StickyActionState(inner, s, mine)

    def step(self, state: StickyActionState, action: Any) -> Step:
        s, key, action = sticky.sticky_step(
            state.sticky,
            state.key,
            tree_map(jnp.asarray, action),
            params=self._params,
            autoreset=_mode(self.env),
        )
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        s = s._replace(prev_terminated=terminated, prev_truncated=truncated)
        return Step(obs, StickyActionState(inner, s, key), reward, terminated, truncated, info)
