"""DiscretizeAction and DiscretizeObservation for functional envs: uniform bins over a Box."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from anywrap.shell.checks import flag, wrapper_name
from anywrap.transforms.discretize import discretize, undiscretize
from anywrap.wrappers.discretize import checked_bins, discrete_space

from .core import FunctionalEnv, ObservationMap, Step, Wrapper, constant

__all__ = ["DiscretizeAction", "DiscretizeObservation"]


class DiscretizeAction(Wrapper):
    """The agent names a bin of a finite Box action space, the env gets its centre.

    Same arguments, space and numbers as :class:`anywrap.DiscretizeAction`.

    Example:
        >>> import jax, jax.numpy as jnp, gymnax
        >>> from anywrap import functional as F
        >>> car = F.from_gymnax(gymnax.make("MountainCarContinuous-v0")[0], num_envs=2)
        >>> env = F.DiscretizeAction(car, bins=4)
        >>> env.action_space
        Discrete(4)
        >>> _, state = env.reset(jax.random.key(0))
        >>> step = jax.jit(env.step)(state, jnp.array([0, 3]))  # centres -0.75, 0.75
        >>> [round(r, 4) for r in step.reward.tolist()]  # MountainCar charges 0.1 * a**2
        [-0.0563, -0.0563]
    """

    def __init__(
        self, env: FunctionalEnv, bins: int | tuple[int, ...], multidiscrete: bool = False
    ):
        super().__init__(env)
        owner = wrapper_name(self)
        self.multidiscrete = flag(owner, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(owner, env.action_space, bins, "action")
        self._space = discrete_space(self.bins, self.multidiscrete)
        self._consts = plan.action
        space = env.action_space
        self._shape, self._dtype = tuple(space.shape), np.dtype(space.dtype).name

    action_space = property(lambda self: self._space)  # type: ignore[assignment]

    def step(self, state: Any, action: Any) -> Step:
        centers, bins, strides = (constant(c) for c in self._consts)
        a = jnp.asarray(action)
        a = undiscretize(a, centers, bins, strides, self._shape, self._dtype, self.multidiscrete)
        return self.env.step(state, a)


class DiscretizeObservation(ObservationMap):
    """Each observation (``info["final_obs"]`` too) becomes the index of its bin in a
    finite Box observation space.

    Same arguments, space and numbers as :class:`anywrap.DiscretizeObservation`
    (int32 indices without JAX's x64).

    Example:
        >>> import jax, gymnax
        >>> from anywrap import functional as F
        >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=2)
        >>> env = F.DiscretizeObservation(env, bins=2, multidiscrete=True)
        >>> env.observation_space
        MultiDiscrete([2 2 2])
        >>> obs, _ = jax.jit(env.reset)(jax.random.key(0))
        >>> obs.tolist()
        [[1, 1, 0], [0, 0, 0]]
    """

    def __init__(
        self, env: FunctionalEnv, bins: int | tuple[int, ...], multidiscrete: bool = False
    ):
        super().__init__(env)
        owner = wrapper_name(self)
        self.multidiscrete = flag(owner, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(owner, env.observation_space, bins, "observation")
        self._space = discrete_space(self.bins, self.multidiscrete)
        self._consts, self._shape = plan.observation, tuple(env.observation_space.shape)

    observation_space = property(lambda self: self._space)  # type: ignore[assignment]

    def _map(self, obs: Any) -> Any:
        low, upper, edges, strides = (constant(c) for c in self._consts)
        x = jnp.asarray(obs)
        return discretize(x, low, upper, edges, strides, self._shape, self.multidiscrete)
