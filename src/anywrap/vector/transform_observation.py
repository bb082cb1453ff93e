"""TransformObservation for vector envs."""

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.arrays import map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import callable_argument
from anywrap.shell.fusion import FusedStep, Part, Piece, Step


class TransformObservation(Shell, FusedStep, VectorWrapper):
    """:class:`gymnasium.wrappers.vector.TransformObservation`, in every autoreset mode (in
    SAME_STEP mode ``func`` maps ``info["final_obs"]`` too, each entry of Gymnasium's object
    array as a batch of one). On device arrays ``func`` joins the stack's one program a step
    (traced by ``jax.jit``, or by ``torch.compile`` where compiling is on); a func that
    cannot be traced runs on its own.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.TransformObservation(gym.make_vec("CartPole-v1", 2), np.abs)
        >>> bool((envs.reset(seed=0)[0] >= 0).all())
        True
    """

    def __init__(
        self,
        env: VectorEnv,
        func: Callable[[Any], Any],
        observation_space: gym.Space | None = None,
        single_observation_space: gym.Space | None = None,
    ) -> None:
        name, _ = self._start(
            env,
            func=func,
            observation_space=observation_space,
            single_observation_space=single_observation_space,
        )
        callable_argument(name, "func", func)
        self._wrap(env, single_observation_space)
        if observation_space is not None:
            self.observation_space = observation_space
        batched = batch_space(self.single_observation_space, self.num_envs)
        if self.observation_space != batched:
            warnings.warn(  # Gymnasium's words, so that filters written for it match
                f"{name}: for {env}, the observation space and "
                "the batched single observation space don't match as expected, "
                f"observation_space={self.observation_space}, batched "
                f"single_observation_space={batched}",
                stacklevel=2,
            )
        self.func = func

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.func(obs), info

    def _after_step(
        self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict
    ) -> Step:
        return self.func(obs), reward, terminated, truncated, map_final_obs(info, self.func)

    def _part(self, out: Any) -> Part | None:
        # On a device, ``func`` joins the stack's program: traced, as jax.jit and
        # torch.compile trace; one that cannot be traced runs on its own.
        fusable = "final_obs" not in out[4] and getattr(type(self.func), "__hash__", None)
        return Part(Piece(self.func, stateful=False)) if fusable else None
