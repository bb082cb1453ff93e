"""What a wrapper's single and vector shells share: Gymnasium's wrapper set up for either.

A constructor written once for both (in the single wrapper's module) starts with
:func:`start`, reads one env's space with :func:`single_space`, and becomes
Gymnasium's wrapper with its new spaces through :func:`wrap`.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    >>> wrapper = anywrap.vector.ReshapeObservation(envs, (2, 2))
    >>> single_space(wrapper, envs).shape, batch_shape(wrapper, envs)
    ((4,), (2,))
    >>> wrapper.single_observation_space.shape, wrapper.observation_space.shape
    ((2, 2), (2, 2, 2))
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import check_env_kind, wrapper_name

__all__ = ["batch_shape", "single_space", "start", "wrap"]


def start(wrapper: Any, env: Any, **recorded: Any) -> tuple[str, tuple[int, ...]]:
    """A shell constructor's first step: record its arguments (Gymnasium's
    ``RecordConstructorArgs``) and refuse an env of the other kind (one env, or a
    vector); the wrapper's name and batch shape."""
    gym.utils.RecordConstructorArgs.__init__(wrapper, **recorded)
    check_env_kind(wrapper, env)
    return wrapper_name(wrapper), batch_shape(wrapper, env)


def single_space(wrapper: Any, env: Any, kind: str = "observation") -> Any:
    """One env's ``kind`` space (``"observation"`` or ``"action"``) of ``wrapper``'s env."""
    vector = isinstance(wrapper, VectorWrapper)
    return getattr(env, f"single_{kind}_space" if vector else f"{kind}_space")


def batch_shape(wrapper: Any, env: Any) -> tuple[int, ...]:
    """``(num_envs,)`` for a vector wrapper, ``()`` for one env."""
    return (env.num_envs,) if isinstance(wrapper, VectorWrapper) else ()


def wrap(wrapper: Any, env: Any, observation_space: Any = None, action_space: Any = None) -> None:
    """Gymnasium's wrapper ``__init__``, then the new spaces (one env's: batched for a
    vector wrapper)."""
    vector = isinstance(wrapper, VectorWrapper)
    (VectorWrapper if vector else gym.Wrapper).__init__(wrapper, env)
    for kind, space in (("observation", observation_space), ("action", action_space)):
        if space is not None and vector:
            setattr(wrapper, f"single_{kind}_space", space)
            space = batch_space(space, wrapper.num_envs)
        if space is not None:
            setattr(wrapper, f"{kind}_space", space)
