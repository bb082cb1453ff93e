"""VectorizeTransformAction, VectorizeTransformObservation and VectorizeTransformReward:
a single-env wrapper's map applied to each sub-env's row, in the batch's library."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.vector import (
    VectorActionWrapper,
    VectorEnv,
    VectorRewardWrapper,
    VectorWrapper,
)
from gymnasium.vector.utils import batch_space, create_empty_array

from anywrap.shell.arrays import map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import callable_argument, check_env_kind, wrapper_name
from anywrap.transforms.vectorize import map_rows
from anywrap.wrappers.filter_observation import SpacesOnly

__all__ = ["VectorizeTransformAction", "VectorizeTransformObservation", "VectorizeTransformReward"]


def _single(owner: Any, env: Any, wrapper: Any, kwargs: dict[str, Any], **spaces: Any) -> Any:
    """``wrapper`` (a single-env wrapper class) over an env of ``env``'s single spaces."""
    check_env_kind(owner, env)
    callable_argument(wrapper_name(owner), "wrapper", wrapper)
    space_env = SpacesOnly(spaces.get("observation_space", env.single_observation_space))
    space_env.action_space = spaces.get("action_space", env.single_action_space)
    return wrapper(space_env, **kwargs)


class VectorizeTransformObservation(Shell, VectorWrapper):
    """Applies a single-env observation wrapper to each sub-env's observation (and to
    ``info["final_obs"]`` in SAME_STEP mode).

    Drop-in for :class:`gymnasium.wrappers.vector.VectorizeTransformObservation`:
    ``wrapper(env, **kwargs)`` is built over the single spaces and its
    ``observation`` maps each row; the rows are stacked in the batch's own
    library (Gymnasium's concatenates into NumPy), each in the wrapper's
    observation-space dtype, as Gymnasium's. Unlike Gymnasium's, the batch given
    is never written over, and SAME_STEP envs are taken (Gymnasium's refuses them).

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2)
        >>> envs = anywrap.vector.VectorizeTransformObservation(
        ...     envs, gym.wrappers.TransformObservation, func=np.abs, observation_space=None)
        >>> envs.reset(seed=0)[0].round(3)
        array([[0.014, 0.046, 0.031, 0.011],
               [0.023, 0.048, 0.041, 0.023]], dtype=float32)
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.ObservationWrapper], **kwargs: Any):
        """Wrap ``env`` with ``wrapper(single_env, **kwargs)`` applied row by row."""
        gym.utils.RecordConstructorArgs.__init__(self, wrapper=wrapper, **kwargs)
        self.wrapper = _single(self, env, wrapper, kwargs)
        VectorWrapper.__init__(self, env)  # (Gymnasium's observation base refuses SAME_STEP)
        self.single_observation_space = self.wrapper.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.same_out = self.observation_space == self.env.observation_space
        self._like = create_empty_array(self.single_observation_space, 1)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset and map each sub-env's observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observations(obs), info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step and map each sub-env's observation (and final observation)."""
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return (
            self.observations(obs),
            reward,
            terminated,
            truncated,
            map_final_obs(info, self.observations),
        )

    def observations(self, observations: Any) -> Any:
        """The wrapper's ``observation`` of each row, stacked."""
        return map_rows(self.wrapper.observation, observations, self._like)


class VectorizeTransformAction(Shell, VectorActionWrapper):
    """Applies a single-env action wrapper to each sub-env's action.

    Drop-in for :class:`gymnasium.wrappers.vector.VectorizeTransformAction`: the
    wrapper's ``action`` maps each row, stacked in the batch's library in the
    env's action dtype (or, where the spaces are the same, the given batch's
    dtype, as Gymnasium's writes into it); the batch given is never written over.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2)
        >>> envs = anywrap.vector.VectorizeTransformAction(
        ...     envs, gym.wrappers.TransformAction, func=lambda a: 0.0 * a, action_space=None)
        >>> envs.actions(np.ones((2, 1), np.float32))
        array([[0.],
               [0.]], dtype=float32)
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.ActionWrapper], **kwargs: Any):
        """Wrap ``env`` with ``wrapper(single_env, **kwargs)`` applied row by row."""
        gym.utils.RecordConstructorArgs.__init__(self, wrapper=wrapper, **kwargs)
        self.wrapper = _single(self, env, wrapper, kwargs)
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.same_out = self.action_space == self.env.action_space
        self._like = create_empty_array(self.env.single_action_space, 1)

    def actions(self, actions: Any) -> Any:
        """The wrapper's ``action`` of each row, stacked."""
        return map_rows(self.wrapper.action, actions, actions if self.same_out else self._like)


class VectorizeTransformReward(Shell, VectorRewardWrapper):
    """Applies a single-env reward wrapper to each sub-env's reward.

    Drop-in for :class:`gymnasium.wrappers.vector.VectorizeTransformReward`: the
    wrapper's ``reward`` maps each sub-env's reward, and the rewards keep their
    dtype (Gymnasium's writes them back into the env's array, which this one
    leaves as it was), in their library.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3)
        >>> envs = anywrap.vector.VectorizeTransformReward(
        ...     envs, gym.wrappers.TransformReward, func=lambda r: r > 0 and r or 0.0)
        >>> envs.rewards(np.array([-1.0, 0.5, 2.0]))
        array([0. , 0.5, 2. ])
    """

    def __init__(self, env: VectorEnv, wrapper: type[gym.RewardWrapper], **kwargs: Any):
        """Wrap ``env`` with ``wrapper(single_env, **kwargs)`` applied reward by reward."""
        gym.utils.RecordConstructorArgs.__init__(self, wrapper=wrapper, **kwargs)
        self.wrapper = _single(self, env, wrapper, kwargs)
        VectorRewardWrapper.__init__(self, env)

    def rewards(self, rewards: Any) -> Any:
        """The wrapper's ``reward`` of each sub-env's reward, in the rewards' dtype."""
        return map_rows(self.wrapper.reward, rewards, rewards)
