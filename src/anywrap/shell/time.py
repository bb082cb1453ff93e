"""What the time wrappers' shells share: the limit's checks, the time-aware space.

Example:
    >>> box = gym.spaces.Box(-1, 1, (2,))
    >>> space, feature = time_aware_space("demo", box, 500, True, "time", True)
    >>> space.low, feature.layout  # the time in [0, 1] joins the flattened observation
    (array([-1., -1.,  0.], dtype=float32), 'wrap')
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Box
from gymnasium.vector import AutoresetMode

from anywrap.shell.checks import flag, wrong_type
from anywrap.transforms.flatten_observation import flatten_plan
from anywrap.transforms.time_aware_observation import TimeFeature

AUTORESET = {m: m.name.lower() for m in AutoresetMode}  # NEXT_STEP: "next_step", ...


def check_max_episode_steps(owner: str, max_episode_steps: Any) -> int:
    if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int):
        raise wrong_type(owner, "max_episode_steps", "an int", max_episode_steps)
    if max_episode_steps <= 0:
        raise ValueError(f"{owner}: expected `max_episode_steps` > 0, got {max_episode_steps}")
    return max_episode_steps


def find_max_steps(owner: str, env: Any) -> int:
    """``max_episode_steps`` from the env's spec, or a time limit in its (first sub-env's) stack."""
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
    """``TimeAwareObservation``'s space, as Gymnasium's, and how its time is added."""
    normalize, flatten = flag(owner, "normalize_time", normalize), flag(owner, "flatten", flatten)
    if not isinstance(key, str) or not key:
        raise wrong_type(owner, "dict_time_key", "a non-empty str", key)
    time_space = Box(0.0, 1.0) if normalize else Box(0, max_steps, dtype=np.int32)
    combined: gym.Space
    if isinstance(space, gym.spaces.Dict):
        if key in space.keys():
            raise ValueError(f"{owner}: `dict_time_key` ({key!r}) is already in the space {space}")
        combined = gym.spaces.Dict({key: time_space, **space.spaces}, sort_keys=space.sort_keys)
        layout = "dict"
    elif isinstance(space, gym.spaces.Tuple):
        combined, layout = gym.spaces.Tuple((*space.spaces, time_space)), "tuple"
    else:
        combined, layout = gym.spaces.Dict(obs=space, time=time_space), "wrap"
    plan = flatten_plan(combined, owner) if flatten else None
    feature = TimeFeature(max_steps, normalize, layout, key, plan=plan, batch_ndim=batch_ndim)
    return (gym.spaces.utils.flatten_space(combined) if flatten else combined), feature
