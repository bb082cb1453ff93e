"""What the single, vector and functional time wrappers share: the checks of
``TimeLimit``'s limit, and ``TimeAwareObservation``'s constructor, space and
time feature (:class:`TimeAwareArguments`), and the clock of the single and
vector ones (:class:`CountsTime`).

Example:
    >>> import gymnasium as gym
    >>> from anywrap.shell.time import time_aware_space
    >>> box = gym.spaces.Box(-1, 1, (2,))
    >>> space, feature = time_aware_space("demo", box, 500, True, "time", True)
    >>> space.low, feature.layout  # the time in [0, 1] joins the flattened observation
    (array([-1., -1.,  0.], dtype=float32), 'wrap')
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv

from anywrap import xp as axp
from anywrap.shell.base import Shell
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.arrays import flatten_plan
from anywrap.transforms.time import TimeFeature, init_clock, time_aware, time_aware_reset

if TYPE_CHECKING:
    from anywrap.functional.core import FunctionalEnv

__all__ = [
    "CountsTime",
    "TimeAwareArguments",
    "check_max_episode_steps",
    "find_max_steps",
    "time_aware_space",
]


def check_max_episode_steps(owner: str, max_episode_steps: Any) -> int:
    """``max_episode_steps`` if it is an int > 0 (Gymnasium's error types)."""
    if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int):
        raise TypeError(
            f"{owner}: expected `max_episode_steps` to be an int, got {max_episode_steps!r}"
        )
    if max_episode_steps <= 0:
        raise ValueError(f"{owner}: expected `max_episode_steps` > 0, got {max_episode_steps}")
    return max_episode_steps


def find_max_steps(owner: str, env: Any) -> int:
    """``max_episode_steps`` from the env's spec, or from a time limit in its stack
    (for a ``SyncVectorEnv``, in its first sub-env's)."""
    spec = getattr(env, "spec", None)
    if spec is not None and getattr(spec, "max_episode_steps", None) is not None:
        return int(spec.max_episode_steps)
    inner, last = env, env
    while inner is not None:
        limit = getattr(inner, "_max_episode_steps", None)
        if isinstance(inner, gym.wrappers.TimeLimit) or (
            type(inner).__name__ == "TimeLimit" and isinstance(limit, int)
        ):
            return int(limit)  # type: ignore[arg-type]
        inner, last = getattr(inner, "env", None), inner
    subs = getattr(last, "envs", None)  # a SyncVectorEnv: its sub-envs' limit
    if isinstance(subs, list | tuple) and subs:
        return find_max_steps(owner, subs[0])
    raise ValueError(
        f"{owner}: the env must be wrapped by a TimeLimit, or its spec must give "
        "`max_episode_steps`"
    )


def time_aware_space(
    owner: str,
    space: gym.Space,
    max_steps: int,
    normalize: bool,
    key: str,
    flatten: bool,
    batch_ndim: int = 0,
) -> tuple[gym.Space, TimeFeature]:
    """``TimeAwareObservation``'s space, built as Gymnasium's, and how its time is added
    (to observations with ``batch_ndim`` batch axes)."""
    time_space: gym.spaces.Box = (
        gym.spaces.Box(0.0, 1.0) if normalize else gym.spaces.Box(0, max_steps, dtype=np.int32)
    )
    combined: gym.Space
    if isinstance(space, gym.spaces.Dict):
        if key in space.keys():
            raise ValueError(f"{owner}: `dict_time_key` ({key!r}) is already in the space {space}")
        combined = gym.spaces.Dict({key: time_space, **space.spaces}, sort_keys=space.sort_keys)
        layout = "dict"
    elif isinstance(space, gym.spaces.Tuple):
        combined = gym.spaces.Tuple((*space.spaces, time_space))
        layout = "tuple"
    else:
        combined = gym.spaces.Dict(obs=space, time=time_space)
        layout = "wrap"
    feature = TimeFeature(max_steps, normalize, layout, key, batch_ndim=batch_ndim)
    if not flatten:
        return combined, feature
    plan = flatten_plan(combined, owner)
    return gym.spaces.utils.flatten_space(combined), feature._replace(plan=plan)


class TimeAwareArguments:
    """Mixin: ``TimeAwareObservation``'s constructor, with Gymnasium's arguments, for
    the single, vector and functional shells alike.

    It records the arguments (for a Gymnasium wrapper's spec), builds the space
    and the :class:`~anywrap.transforms.time.TimeFeature`, and leaves the rest to
    the shell: :meth:`_wrap` wraps ``env`` and says what its observations are,
    :meth:`_max_steps` finds ``max_timesteps`` when it is not given, and
    :meth:`_start` takes the new space and the feature.
    """

    flatten: bool
    normalize_time: bool
    max_timesteps: int

    def __init__(
        self,
        env: gym.Env | VectorEnv | FunctionalEnv,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        """Wrap ``env``; see the class docstring for the arguments."""
        space, batch_ndim = self._wrap(env)
        steps = self._max_steps(env) if max_timesteps is None else int(max_timesteps)
        new_space, feature = time_aware_space(
            wrapper_name(self), space, steps, normalize_time, dict_time_key, flatten, batch_ndim
        )
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps
        self._start(new_space, feature)

    def _wrap(self, env: Any) -> tuple[gym.Space, int]:
        """Wrap ``env``; ``(space, batch_ndim)`` of one observation it returns."""
        raise NotImplementedError

    def _max_steps(self, env: Any) -> int:
        """``max_timesteps`` of ``env`` (see :func:`find_max_steps`)."""
        return find_max_steps(wrapper_name(self), env)

    def _start(self, space: gym.Space, feature: TimeFeature) -> None:
        """Take the wrapper's observation ``space``, and add the time as ``feature`` says."""
        raise NotImplementedError


class CountsTime(TimeAwareArguments, Shell):
    """Mixin of the single and vector ``TimeAwareObservation``: the clocks (one count
    per env, in the env's library) and ``reset``.

    A vector shell puts :class:`~anywrap.shell.arrays.ResetsSubEnvs` before this
    mixin, so that its ``reset`` takes ``reset_mask``.
    """

    env: Any
    _step: Any
    _reset: Any

    def _start_clock(
        self, batch_shape: tuple[int, ...], feature: TimeFeature, autoreset: str = "disabled"
    ) -> None:
        """Zero counts of shape ``batch_shape``, and the compiled steps that add the time."""
        self._state = init_clock(batch_shape, xp=np)
        self._step = axp.Compiled(partial(time_aware, feature=feature, autoreset=autoreset), 0)
        self._reset = axp.Compiled(partial(time_aware_reset, feature=feature), 0)

    def _reset_env(
        self, seed: int | None, options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any], Any]:
        """Reset one env: ``(obs, info, None)``."""
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, info, None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and the counts (of a vector env: all of them, or those of the
        ``reset_mask`` option); the observations show time 0."""
        obs, info, mask = self._reset_env(seed, options)
        state, out = self._reset(self._state_for(obs), obs, mask)
        self._commit(state, obs)
        return out, info
