"""The Vectorize* wrappers: a single-env wrapper's map applied to each sub-env's row."""

from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorActionWrapper, VectorEnv, VectorRewardWrapper, VectorWrapper
from gymnasium.vector.utils import batch_space, create_empty_array

from anywrap.shell.arrays import map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import callable_argument
from anywrap.transforms.vectorize import map_rows
from anywrap.wrappers.transform_observation import SpacesOnly


def _single(name: str, env: Any, wrapper: Any, kwargs: dict[str, Any]) -> Any:
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
        self.wrapper = _single(name, env, wrapper, kwargs)
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


class VectorizeTransformAction(Shell, VectorActionWrapper):
    """:class:`gymnasium.wrappers.vector.VectorizeTransformAction`, stacking the rows in the
    batch's library (and in the env's action dtype) and never writing over it.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2)
        >>> envs = anywrap.vector.VectorizeTransformAction(
        ...     envs, gym.wrappers.TransformAction, func=lambda a: 0.0 * a, action_space=None)
        >>> envs.actions(np.ones((2, 1), np.float32))
        array([[0.],
               [0.]], dtype=float32)
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.ActionWrapper], **kwargs: Any):
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        self.wrapper = _single(name, env, wrapper, kwargs)
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.same_out = self.action_space == self.env.action_space
        self._like = create_empty_array(self.env.single_action_space, 1)

    def actions(self, actions: Any) -> Any:
        return map_rows(self.wrapper.action, actions, actions if self.same_out else self._like)


class VectorizeTransformReward(Shell, VectorRewardWrapper):
    """:class:`gymnasium.wrappers.vector.VectorizeTransformReward`, in the rewards' library
    and dtype, never writing over the env's array.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3)
        >>> envs = anywrap.vector.VectorizeTransformReward(
        ...     envs, gym.wrappers.TransformReward, func=lambda r: r > 0 and r or 0.0)
        >>> envs.rewards(np.array([-1.0, 0.5, 2.0]))
        array([0. , 0.5, 2. ])
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.RewardWrapper], **kwargs: Any):
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        self.wrapper = _single(name, env, wrapper, kwargs)
        VectorRewardWrapper.__init__(self, env)

    def rewards(self, rewards: Any) -> Any:
        return map_rows(self.wrapper.reward, rewards, rewards)
