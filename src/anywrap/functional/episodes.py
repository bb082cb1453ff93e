"""The functional wrappers of the episode: autoreset, time, delay, frame stack, repeat."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import flag, whole_number, wrapper_name
from anywrap.shell.delay_observation import check_delay, zero_observation
from anywrap.shell.images import box_space, check_positive_int, padding_of
from anywrap.shell.time import check_max_episode_steps, time_aware_space
from anywrap.transforms import delay_observation as delay
from anywrap.transforms import frame_stack_observation as stack
from anywrap.transforms.time_aware_observation import time_aware, time_aware_reset
from anywrap.transforms.time_limit import Clock, init_clock, select_rows, time_limit
from anywrap.tree import tree_map
from anywrap.wrappers.stateful_action import check_repeats

from .core import (
    FunctionalEnv,
    Step,
    Wrapper,
    as_rows,
    batch_ndim,
    batch_shape,
    constant,
    from_rows,
    same_step,
    split_key,
)

__all__ = [
    "AutoReset",
    "AutoResetState",
    "CachedResetState",
    "DelayObservation",
    "DelayObservationState",
    "FrameStackObservation",
    "FrameStackState",
    "RepeatAction",
    "TimeAwareObservation",
    "TimeAwareObservationState",
    "TimeLimit",
    "TimeLimitState",
]


class AutoResetState(NamedTuple):
    inner: Any
    key: jax.Array


class CachedResetState(NamedTuple):
    inner: Any
    first_obs: Any
    first_inner: Any


class AutoReset(Wrapper):
    """Reset a finished episode in the same step (Gymnasium's SAME_STEP autoreset).

    Where an episode ends, ``obs`` and the state are a fresh episode's and
    ``info["final_obs"]`` the finished one's last observation. Place it over the env
    and its ``TimeLimit``, below every other wrapper.

    Args:
        full_reset: True: each step calls the env's ``reset`` with a fresh key, as
            Gymnasium does. False: each env restarts from its first observation and
            state, as Brax's ``AutoResetWrapper`` does (faster, but every episode of an
            env starts from the same state and key).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.AutoReset(F.from_func_env(PendulumFunctional(), max_episode_steps=1))
        >>> s = env.step(env.reset(jax.random.key(0))[1], jnp.zeros(1))
        >>> bool(s.truncated), bool((s.obs != s.info["final_obs"]).all())  # a new episode
        (True, True)
    """

    state_type: ClassVar[type | None] = AutoResetState
    per_env_fields: ClassVar[tuple[str, ...]] = ("key",)

    def __init__(self, env: FunctionalEnv, *, full_reset: bool = True) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                f"{name}: the env already resets itself ({env.autoreset_mode}); "
                "wrapping it again would reset twice"
            )
        self.full_reset = flag(name, "full_reset", full_reset)
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
        else:
            key, sub = split_key(state.key)
            fresh, state = self.env.reset(sub), state._replace(key=key)
        done = jnp.logical_or(terminated, truncated)
        new_obs, new_inner = jax.tree.map(partial(select_rows, done), fresh, (obs, inner))
        state = state._replace(inner=new_inner)
        return Step(new_obs, state, reward, terminated, truncated, {**info, "final_obs": obs})


class TimeLimitState(NamedTuple):
    inner: Any
    clock: Clock


class TimeLimit(Wrapper):
    """Truncate each environment's episode once it has taken ``max_episode_steps`` steps
    (place it below :class:`~anywrap.functional.AutoReset`).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.TimeLimit(F.from_func_env(PendulumFunctional()), 1)
        >>> bool(env.step(env.reset(jax.random.key(0))[1], jnp.zeros(1)).truncated)
        True
    """

    state_type = TimeLimitState
    per_env_fields = ("clock",)

    def __init__(self, env: FunctionalEnv, max_episode_steps: int) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        if env.autoreset_mode != AutoresetMode.DISABLED:
            raise ValueError(
                f"{name}: the env resets itself ({env.autoreset_mode}), so it would not "
                "reset the episodes the limit truncates; place TimeLimit below AutoReset, "
                "over an env that does not reset itself"
            )

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        return obs, TimeLimitState(inner, init_clock(batch_shape(self.env, obs), xp=jnp))

    def step(self, state: TimeLimitState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        clock, (truncated, _) = time_limit(
            state.clock, terminated, truncated, max_steps=self.max_episode_steps
        )
        return Step(obs, TimeLimitState(inner, clock), reward, terminated, truncated, info)


class TimeAwareObservationState(NamedTuple):
    inner: Any
    clock: Clock


class TimeAwareObservation(Wrapper):
    """Add each environment's episode step count to its observation, as Gymnasium does;
    ``max_timesteps`` is given or read from a :class:`TimeLimit` below.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.TimeLimit(F.from_func_env(PendulumFunctional()), 4)
        >>> env = F.TimeAwareObservation(env, normalize_time=True)
        >>> obs, state = env.reset(jax.random.key(0))
        >>> float(obs[-1]), float(env.step(state, jnp.zeros(1)).obs[-1])
        (0.0, 0.25)
    """

    state_type = TimeAwareObservationState
    per_env_fields = ("clock",)

    def __init__(
        self,
        env: FunctionalEnv,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        if max_timesteps is not None:
            steps = whole_number(name, "max_timesteps", max_timesteps, 1)
        else:  # the first TimeLimit below
            below: Any = env
            while below is not None and not isinstance(below, TimeLimit):
                below = getattr(below, "env", None)
            if below is None:
                raise ValueError(
                    f"{name}: give `max_timesteps`, or place a TimeLimit below this wrapper"
                )
            steps = int(below.max_episode_steps)
        space, b = env.observation_space, batch_ndim(env)
        self._obs_space, self._feature = time_aware_space(
            name, space, steps, normalize_time, dict_time_key, flatten, b
        )
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        clock = init_clock(batch_shape(self.env, obs), xp=jnp)
        clock, out = time_aware_reset(clock, obs, feature=self._feature)
        return out, TimeAwareObservationState(inner, clock)

    def step(self, state: TimeAwareObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        final = info.get("final_obs")
        mode = "same_step" if same_step(self.env) else "disabled"
        clock, (out, final) = time_aware(
            state.clock, obs, terminated, truncated, final, feature=self._feature, autoreset=mode
        )
        info = info if final is None else {**info, "final_obs": final}
        state = TimeAwareObservationState(inner, clock)
        return Step(out, state, reward, terminated, truncated, info)


class DelayObservationState(NamedTuple):
    inner: Any
    delay: delay.DelayState


class DelayObservation(Wrapper):
    """Return each environment's observation of ``delay`` steps ago (the space's zero
    until its episode has one), as :class:`anywrap.DelayObservation` does.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> obs, state = F.DelayObservation(bare, delay=1).reset(jax.random.key(0))
        >>> float(abs(obs).sum())  # nothing one step back yet
        0.0
    """

    state_type = DelayObservationState
    per_env_fields = ("delay",)

    def __init__(self, env: FunctionalEnv, delay: int) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.delay = check_delay(name, delay)
        self._zero = zero_observation(name, env.observation_space)

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        zero = tree_map(constant, self._zero)
        s = delay.init_delay(zero, delay=self.delay, batch_shape=batch_shape(self.env, obs), xp=jnp)
        s, out = delay.reset_delay(s, obs, zero)
        return out, DelayObservationState(inner, s)

    def step(self, state: DelayObservationState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        zero = tree_map(constant, self._zero)
        if same_step(self.env):
            s, out, final = delay.delay_with_final(
                state.delay, obs, info.get("final_obs", obs), terminated, truncated, zero
            )
            info = {**info, "final_obs": final} if "final_obs" in info else info
        else:
            s, out = delay.delay_observation(state.delay, obs, zero)
        return Step(out, DelayObservationState(inner, s), reward, terminated, truncated, info)


class FrameStackState(NamedTuple):
    inner: Any
    frames: stack.FrameStack


class FrameStackObservation(Wrapper):
    """Stack the last ``stack_size`` observations, oldest first, as
    :class:`anywrap.FrameStackObservation` does (over a SAME_STEP env, a done env's
    stack restarts and ``info["final_obs"]`` is the stack its episode ended on).

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> obs, state = F.FrameStackObservation(env, 3).reset(jax.random.key(0))
        >>> obs.shape, bool((obs[:, 0] == obs[:, 2]).all())  # padded with the first
        ((2, 3, 3), True)
    """

    state_type = FrameStackState
    per_env_fields = ("frames",)

    def __init__(
        self, env: FunctionalEnv, stack_size: int, *, padding_type: str | Any = "reset"
    ) -> None:
        super().__init__(env)
        name = wrapper_name(self)
        self.stack_size = check_positive_int(name, "stack_size", stack_size, 1)
        space = box_space(name, env.observation_space)
        self.padding_type, self.padding_value = padding_of(name, space, padding_type)
        self._frame, self._dtype = tuple(space.shape), space.dtype
        self._obs_space = batch_space(space, n=self.stack_size)
        self._first = self.padding_type == "reset"

    def reset(self, key: jax.Array) -> tuple[Any, Any]:
        obs, inner = self.env.reset(key)
        rows = as_rows(self.env, obs)
        pad = None if self._first else self.padding_value
        state = stack.init_frame_stack(
            rows.shape[0], self.stack_size, self._frame, xp=jnp, dtype=self._dtype, padding=pad
        )
        state, out = stack.reset_frame_stack(state, rows, pad_with_first=self._first)
        return from_rows(self.env, out), FrameStackState(inner, state)

    def step(self, state: FrameStackState, action: Any) -> Step:
        obs, inner, reward, terminated, truncated, info = self.env.step(state.inner, action)
        rows, done = as_rows(self.env, obs), None
        if same_step(self.env):
            done = as_rows(self.env, jnp.logical_or(terminated, truncated))
        if done is not None and "final_obs" in info:
            final = as_rows(self.env, info["final_obs"])
            st, out, final = stack.push_frame_with_final(
                state.frames, rows, final, done, pad_with_first=self._first
            )
            info = {**info, "final_obs": from_rows(self.env, final)}
        else:
            st, out = stack.push_frame(state.frames, rows, start=done, pad_with_first=self._first)
        out = from_rows(self.env, out)
        return Step(out, FrameStackState(inner, st), reward, terminated, truncated, info)


class RepeatAction(Wrapper):
    """Steps one env ``num_repeats`` times with each action, summing the rewards, and
    stops where its episode ends, as :class:`anywrap.RepeatAction` does (it wraps one
    env: batch it with :class:`anywrap.functional.VmapWrapper`).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from gymnasium.envs.phys2d.pendulum import PendulumFunctional
        >>> from anywrap import functional as F
        >>> env = F.TimeLimit(F.from_func_env(PendulumFunctional()), 2)
        >>> env = F.RepeatAction(F.TransformReward(env, lambda r: 0 * r + 1), num_repeats=4)
        >>> step = env.step(env.reset(jax.random.key(0))[1], jnp.zeros(1))  # the 2nd step ends it
        >>> float(step.reward), bool(step.truncated)
        (2.0, True)
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
