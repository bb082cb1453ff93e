"""Pure, jittable wrappers for JAX-native environments (Brax, gymnax, Gymnasium FuncEnv).

``reset(key) -> (obs, state)`` and ``step(state, action) -> Step``: wrapper state rides
inside ``state``, so a wrapped rollout compiles under ``jax.jit``, ``vmap`` and ``scan``.

Example:
    >>> import jax, gymnax
    >>> from anywrap import functional as F
    >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
    >>> env = F.NormalizeObservation(F.RecordEpisodeStatistics(F.ClipAction(env)))
    >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
    >>> def body(state, key):
    ...     action = jax.random.uniform(key, (64, 1), minval=-3.0, maxval=3.0)
    ...     step = env.step(state, action)
    ...     return step.state, step.reward
    >>> rollout = jax.jit(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 10)))
    >>> state, rewards = rollout(state, jax.random.key(1))
    >>> rewards.shape
    (10, 64)
"""

import importlib
from typing import Any

try:
    import jax  # noqa: F401
except ModuleNotFoundError:  # named with the extra that installs it
    from anywrap._extras import require

    require("jax", "anywrap.functional")
    raise

from . import adapters, brax_training, core, episodes, maps, noise, sharding, statistics, vector_env
from .adapters import *  # noqa: F403
from .brax_training import *  # noqa: F403
from .core import *  # noqa: F403
from .episodes import *  # noqa: F403
from .maps import *  # noqa: F403
from .noise import *  # noqa: F403
from .sharding import *  # noqa: F403
from .statistics import *  # noqa: F403
from .vector_env import *  # noqa: F403

_RECORDING = ("RecordTrajectory", "Trajectory", "write_report")  # anywrap.record.functional's

__all__ = [
    *adapters.__all__,
    *brax_training.__all__,
    *core.__all__,
    *episodes.__all__,
    *maps.__all__,
    *noise.__all__,
    *_RECORDING,
    *sharding.__all__,
    *statistics.__all__,
    *vector_env.__all__,
]


def __getattr__(name: str) -> Any:
    # The recording wrapper loads on first use (it imports the report page), as RecordHTML.
    if name in _RECORDING:
        return getattr(importlib.import_module("anywrap.record.functional"), name)
    raise AttributeError(f"module 'anywrap.functional' has no attribute {name!r}")


def __dir__() -> list[str]:  # the recorder's names too (tab completion), not loaded
    return sorted({*globals(), *__all__})
