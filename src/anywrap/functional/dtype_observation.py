"""DtypeObservation for functional envs: every observation cast to one dtype."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from anywrap.shell.arrays import dtype_space
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.dtype_observation import cast

from .core import FunctionalEnv, ObservationMap

__all__ = ["DtypeObservation"]


class DtypeObservation(ObservationMap):
    """Cast every observation to ``dtype``, as :class:`anywrap.DtypeObservation` does
    (a 64-bit dtype is held in 32 bits when JAX's x64 is off).

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
        self._space = dtype_space(wrapper_name(self), env.observation_space, dtype)
        self.dtype = dtype

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        return cast(jnp.asarray(obs), np.dtype(self._space.dtype).name)
