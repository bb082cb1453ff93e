"""Observation vector wrappers: transform, vectorize a single-env one, filter,
flatten, images, reshape, rescale, dtype."""

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space, create_empty_array

from anywrap.shell.arrays import map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import callable_argument
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.vectorize import map_rows
from anywrap.wrappers import transform_observation as single
from anywrap.wrappers.transform_observation import SpacesOnly


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


def single_wrapper(name: str, env: Any, wrapper: Any, kwargs: dict[str, Any]) -> Any:
    """``wrapper`` (a single-env wrapper class) over an env of ``env``'s single spaces."""
    callable_argument(name, "wrapper", wrapper)
    return wrapper(SpacesOnly(env.single_observation_space, env.single_action_space), **kwargs)


class VectorizeTransformObservation(Shell, VectorWrapper):
    """:class:`gymnasium.wrappers.vector.VectorizeTransformObservation`, stacking the rows in
    the batch's library, never writing over it, and mapping ``info["final_obs"]`` too.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2)
        >>> envs = anywrap.vector.VectorizeTransformObservation(
        ...     envs, gym.wrappers.TransformObservation, func=np.abs, observation_space=None)
        >>> envs.reset(seed=0)[0].round(3)
        array([[0.014, 0.046, 0.031, 0.011],
               [0.023, 0.048, 0.041, 0.023]], dtype=float32)
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.ObservationWrapper], **kwargs: Any):
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        self.wrapper = single_wrapper(name, env, wrapper, kwargs)
        VectorWrapper.__init__(self, env)  # (Gymnasium's observation base refuses SAME_STEP)
        self.single_observation_space = self.wrapper.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.same_out = self.observation_space == self.env.observation_space
        self._like = create_empty_array(self.single_observation_space, 1)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observations(obs), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(actions)
        info = map_final_obs(info, self.observations)
        return self.observations(obs), reward, terminated, truncated, info

    def observations(self, observations: Any) -> Any:
        return map_rows(self.wrapper.observation, observations, self._like)


class FilterObservation(VectorObservationMap):
    """:class:`anywrap.FilterObservation` for a vector env (``info["final_obs"]`` filtered
    too): the env's own batches, where Gymnasium's copies them into NumPy.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync", wrappers=[
        ...     lambda e: gym.wrappers.TimeAwareObservation(e, flatten=False)])
        >>> anywrap.vector.FilterObservation(envs, filter_keys=["time"]).reset(seed=42)[0]
        {'time': array([[0],
               [0]], dtype=int32)}
    """

    __init__ = single.FilterObservation.__init__


class FlattenObservation(VectorObservationMap):
    """:class:`anywrap.FlattenObservation` for a vector env; the batch takes the flat
    space's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.FlattenObservation(gym.make_vec("Blackjack-v1", 3)).reset()[0].shape
        (3, 45)
    """

    __init__ = single.FlattenObservation.__init__
    _mapped = single.FlattenObservation._mapped


class GrayscaleObservation(VectorObservationMap):
    """:class:`anywrap.GrayscaleObservation` for a vector env, in one batched call; in
    SAME_STEP mode (which Gymnasium's refuses) ``info["final_obs"]`` is converted too.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.GrayscaleObservation(envs).reset(seed=0)[0].shape
        (2, 210, 160)
    """

    __init__ = single.GrayscaleObservation.__init__


class ResizeObservation(VectorObservationMap):
    """:class:`anywrap.ResizeObservation` for a vector env: the whole batch in one call, in
    every autoreset mode.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.ResizeObservation(envs, (84, 84)).reset(seed=0)[0].shape
        (2, 84, 84, 3)
    """

    __init__ = single.ResizeObservation.__init__


class ReshapeObservation(VectorObservationMap):
    """:class:`anywrap.ReshapeObservation` for a vector env; the batch takes the space's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.ReshapeObservation(gym.make_vec("CartPole-v1", 3), (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)
    """

    __init__ = single.ReshapeObservation.__init__


class RescaleObservation(VectorObservationMap):
    """:class:`anywrap.RescaleObservation` for a vector env; the result takes the Box's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> obs, _ = anywrap.vector.RescaleObservation(envs, 0.0, 1.0).reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)
    """

    __init__ = single.RescaleObservation.__init__


class DtypeObservation(VectorObservationMap):
    """:class:`anywrap.DtypeObservation` for a vector env (``info["final_obs"]`` cast too).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DtypeObservation(gym.make_vec("CartPole-v1", 2), np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')
    """

    __init__ = single.DtypeObservation.__init__
