"""Gymnasium's common wrappers for one env: time limit, autoreset, checks, episode statistics."""

import functools
import operator
import time
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorWrapper

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_stats_key,
    checked_reset,
    step_flags,
    step_info,
    step_values,
    whole_number,
)
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.episodes import EpisodeClock
from anywrap.shell.time import check_max_episode_steps
from anywrap.transforms import record_episode_statistics as E
from anywrap.transforms import time_limit as T
from anywrap.tree import tree_map


def host_copy(tree: Any) -> Any:
    """``tree`` with every device array copied to NumPy (a 0-d one as a NumPy scalar)."""

    def one(x: Any) -> Any:
        if xp.is_host(x) or not hasattr(x, "shape"):
            return x
        host = xp.to_numpy(x)
        return host[()] if host.ndim == 0 else host

    return tree_map(one, tree)


def state_field(path: str, doc: str, host: type | None = None) -> property:
    """A read-only property ``doc``: the state's (dotted) field ``path``, or ``host`` of it."""

    def get(self: Any) -> Any:
        value = operator.attrgetter(path)(self._state)
        return value if host is None else host(xp.to_numpy(value))

    return property(get, doc=doc)


def reset_env(shell: Any, seed: Any, options: Any) -> tuple[Any, Any, Any]:
    """The env's reset as ``(obs, info, mask)``: a vector ``reset_mask`` like ``obs``, or None."""
    if isinstance(shell, VectorWrapper):
        return shell._masked_reset(seed, options)  # type: ignore[attr-defined]
    obs, info = shell.env.reset(seed=seed, options=options)
    return obs, info, None


class HostView:
    """For a ``with`` block, ``wrapper.env`` with its outputs copied to the host (the
    originals kept in ``result``), as Gymnasium's checks and screens read them."""

    def __init__(self, wrapper: Any) -> None:
        self._wrapper, self._env, self.result = wrapper, wrapper.env, None  # type: Any, Any, Any
        # The checker reads reset's signature (does it take seed and options?): the env's.
        self.reset = functools.wraps(self._env.reset)(lambda **kwargs: self._reset(**kwargs))

    def __enter__(self) -> "HostView":
        self._wrapper.env = self
        return self

    def __exit__(self, *exc: Any) -> None:
        self._wrapper.env = self._env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def _reset(self, **kwargs: Any) -> Any:
        self.result = out = self._env.reset(**kwargs)
        if isinstance(out, tuple) and len(out) == 2:  # else the checker says what is wrong
            return host_copy(out[0]), out[1]
        return out

    def step(self, action: Any) -> Any:
        self.result = out = self._env.step(action)
        return (*host_copy(out[:4]), out[4]) if isinstance(out, tuple) and len(out) == 5 else out

    def render(self) -> Any:
        return host_copy(self._env.render())


class OrderEnforcing(gym.wrappers.OrderEnforcing):
    """Raises :class:`gymnasium.error.ResetNeeded` if ``step`` or ``render`` comes before
    ``reset``: :class:`gymnasium.wrappers.OrderEnforcing`, which touches no array.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.OrderEnforcing(gym.make("CartPole-v1", disable_env_checker=True))
        >>> env.step(0)
        Traceback (most recent call last):
        ...
        gymnasium.error.ResetNeeded: Cannot call env.step() before calling env.reset()
    """

    reset = checked_reset(gym.wrappers.OrderEnforcing.reset)


class Autoreset(gym.wrappers.Autoreset):
    """Resets the env on the step after an episode ends: :class:`gymnasium.wrappers.Autoreset`
    (it reads a device env's flags on the host, as every loop over one env does).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.Autoreset(gym.make("CartPole-v1", max_episode_steps=2))
        >>> _ = env.reset(seed=0)
        >>> [env.step(0)[3] for _ in range(3)]  # truncated, then the reset step
        [False, True, False]
    """

    reset = checked_reset(gym.wrappers.Autoreset.reset)


class PassiveEnvChecker(gym.wrappers.PassiveEnvChecker):
    """:class:`gymnasium.wrappers.PassiveEnvChecker`, but a device env's first outputs are
    checked as NumPy copies; the wrapper returns the env's own arrays.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.PassiveEnvChecker(gym.make("CartPole-v1", disable_env_checker=True))
        >>> env.reset(seed=0)[0].shape, env.checked_reset
        ((4,), True)
    """

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if self.checked_reset:
            return self.env.reset(seed=seed, options=options)
        with HostView(self) as view:
            super().reset(seed=seed, options=options)
        self._previous_data = view.result
        return view.result

    def step(self, action: Any) -> Any:
        if self.checked_step:
            return super().step(action)
        with HostView(self) as view:
            super().step(action)
        self._previous_data = (view.result[0], view.result[4])
        return view.result


class TimeLimit(Shell, gym.wrappers.TimeLimit):
    """Truncates an episode at ``max_episode_steps`` steps: :class:`gymnasium.wrappers.TimeLimit`
    (an instance of it), the count on a device env's device.

    Example:
        >>> from gymnasium.envs.classic_control import CartPoleEnv
        >>> import anywrap
        >>> env = anywrap.TimeLimit(CartPoleEnv(), max_episode_steps=2)
        >>> _ = env.reset(seed=0)
        >>> [env.step(0)[3] for _ in range(2)]
        [False, True]
    """

    def __init__(self, env: gym.Env, max_episode_steps: int) -> None:
        """Wrap ``env``; ``max_episode_steps`` > 0 is the step at which episodes truncate."""
        name, _ = self._start(env, max_episode_steps=max_episode_steps)
        max_episode_steps = check_max_episode_steps(name, max_episode_steps)
        self._wrap(env)
        self._max_episode_steps = max_episode_steps
        self._started = False
        self._state = T.init_clock((), xp=np)
        step = partial(T.time_limit, max_steps=max_episode_steps)
        self._transforms = compiled({"step": step, "reset": with_no_output(T.reset_clock)})

    @property  # type: ignore[override]
    def _elapsed_steps(self) -> int | None:
        """Steps taken this episode (``None`` before the first reset), read on the host."""
        return int(xp.to_numpy(self._state.elapsed)) if self._started else None

    @_elapsed_steps.setter
    def _elapsed_steps(self, value: int | None) -> None:
        if value is None:
            return  # gymnasium.wrappers.TimeLimit.__init__'s placeholder
        old = self._state.elapsed
        new = xp.namespace(old).asarray(value, dtype=old.dtype, device=xp.device(old))
        self._state = self._state._replace(elapsed=new)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        self._run(self._transforms["reset"], self._state.elapsed)
        self._started = True
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("anywrap.TimeLimit: call reset() before step()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        step_flags("anywrap.TimeLimit", terminated, truncated, None)
        limited, over = self._run(self._transforms["step"], terminated, terminated, truncated)
        if xp.is_host(truncated):  # Gymnasium's branch, and its Python True
            limited = True if over else truncated
        return obs, reward, terminated, limited, info


class EpisodeStatisticsShell(EpisodeClock, Shell):
    """The constructor and running episode of the single and vector RecordEpisodeStatistics."""

    def __init__(self, env: Any, buffer_length: int = 100, stats_key: str = "episode") -> None:
        name, batch = self._start(env, buffer_length=buffer_length, stats_key=stats_key)
        buffer_length = whole_number(name, "buffer_length", buffer_length, 0)
        stats_key = check_stats_key(name, stats_key)
        self._wrap(env)
        self._stats_key, self.buffer_length = stats_key, buffer_length
        self._t0 = time.perf_counter()
        self._state = E.init_episodes(batch, xp=np, buffer_length=buffer_length)
        # A single env never autoresets: an episode restarts at reset() or, failing that,
        # right after it ends (SAME_STEP bookkeeping is the cheapest).
        same = not batch or autoreset_mode(name, env) is AutoresetMode.SAME_STEP
        steps = {r: partial(E.step_episodes, report=r, same_step=same) for r in (True, False)}
        self._transforms = compiled({**steps, "reset": with_no_output(E.reset_episodes)})

    episode_returns = state_field("returns", "The return so far of each running episode.")
    episode_lengths = state_field("lengths", "The length so far of each running episode.")


class RecordEpisodeStatistics(EpisodeStatisticsShell, gym.Wrapper):
    """Records each episode's return, length and wall time in ``info[stats_key]``:
    :class:`gymnasium.wrappers.RecordEpisodeStatistics`; with device flags it is added on
    every step, zero where the mask ``info["_" + stats_key]`` is False.

    Args:
        buffer_length: How many recent episodes the queues keep.
        stats_key: The info key of the episode statistics.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RecordEpisodeStatistics(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> while "episode" not in (info := env.step(1)[-1]):  # the pole falls after 8 steps
        ...     pass
        >>> sorted(info["episode"]), list(env.return_queue), list(env.length_queue)
        (['l', 'r', 't'], [8.0], [8])
    """

    @property
    def episode_start_time(self) -> float:
        """``time.perf_counter()`` at the start of the current episode."""
        return float(xp.to_numpy(self._state.start_time)) + self._t0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        self._state = E.reset_episodes(self._state, None, self._now())
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        name = "anywrap.RecordEpisodeStatistics"
        step_info(name, info)
        value = step_values(name, reward, terminated, truncated, None)
        host = xp.is_host(terminated) and xp.is_host(truncated)
        done = bool(terminated or truncated) if host else True  # device flags: every step
        if done and self._stats_key in info:
            raise ValueError(
                f"{name}: expected an info without the key {self._stats_key!r} (this wrapper "
                f"writes it), got one with the keys {sorted(info)}"
            )
        now = self._now() if done else 0.0
        out = self._run(self._transforms[done], value, value, terminated, truncated, now=now)
        if out is not None:
            stats = {"r": out.returns, "l": out.lengths, "t": out.times}
            # Gymnasium's Python numbers on the host; device values with their mask
            info[self._stats_key] = {k: v.item() for k, v in stats.items()} if host else stats
            if not host:
                info["_" + self._stats_key] = out.done
        return obs, reward, terminated, truncated, info
