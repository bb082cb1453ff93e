"""Specs that rebuild a wrapper: every constructor argument is recorded.

Gymnasium rebuilds a wrapped env from its spec (``gym.make(env.spec)``) with
the keyword arguments each wrapper recorded through
:class:`gymnasium.utils.RecordConstructorArgs`. A wrapper that records them by
hand can forget one (then a rebuilt env silently takes the default). A shell
that inherits :class:`RecordsArguments` records them all, from its
constructor's signature, before the constructor runs.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.NormalizeReward(gym.make("CartPole-v1"), gamma=0.9, stats_dtype="float32")
    >>> env.spec.additional_wrappers[-1].kwargs
    {'gamma': 0.9, 'epsilon': 1e-08, 'stats_dtype': 'float32', 'update_running_mean': True}
    >>> rebuilt = gym.make(env.spec)
    >>> rebuilt.gamma, rebuilt.stats_dtype
    (0.9, 'float32')
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import gymnasium as gym

__all__ = ["RecordsArguments"]


class RecordsArguments(gym.utils.RecordConstructorArgs):
    """Base of the shells: records every argument of the most derived
    ``__init__`` (defaults included; ``self`` and ``env`` left out) for the spec.

    Values are recorded as they are, not deep-copied (a process group cannot
    be copied). As in Gymnasium, the first recording wins, so a subclass's
    arguments are the ones kept.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__init__  # its own, or one a mixin gives it
        if not getattr(init, "_records_arguments", False):
            cls.__init__ = _recording(init)  # type: ignore[method-assign]


def _recording(init: Callable[..., None]) -> Callable[..., None]:
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not hasattr(self, "_saved_kwargs"):
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError:
                pass  # the call itself is wrong: let the constructor say how
            else:
                bound.apply_defaults()
                recorded = {}
                for name, value in bound.arguments.items():
                    kind = signature.parameters[name].kind
                    if name in ("self", "env"):
                        continue
                    if kind is inspect.Parameter.VAR_KEYWORD:
                        recorded.update(value)
                    elif kind is not inspect.Parameter.VAR_POSITIONAL:
                        recorded[name] = value
                gym.utils.RecordConstructorArgs.__init__(self, _disable_deepcopy=True, **recorded)
        init(self, *args, **kwargs)

    __init__._records_arguments = True  # type: ignore[attr-defined]
    return __init__
