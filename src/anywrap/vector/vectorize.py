"""Vector shells that map observations, actions or rewards."""

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorActionWrapper, VectorEnv, VectorRewardWrapper, VectorWrapper
from gymnasium.vector.utils import batch_space, create_empty_array

from anywrap.shell.arrays import map_final_obs
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode_property,
    callable_argument,
    check_env_kind,
    checked_reset,
    wrapper_name,
)
from anywrap.shell.fusion import FusedStep, Part, Piece, Step
from anywrap.shell.maps import VectorActionMap, VectorObservationMap, VectorRewardMap
from anywrap.transforms.vectorize import map_rows
from anywrap.wrappers import transform_action, transform_observation, transform_reward
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

    def _after_step(self, out: Step) -> Step:
        obs, reward, terminated, truncated, info = out
        return self.func(obs), reward, terminated, truncated, map_final_obs(info, self.func)

    def _part(self, out: Any) -> Part | None:
        fusable = "final_obs" not in out[4] and getattr(type(self.func), "__hash__", None)
        return Part(Piece(self.func, stateful=False)) if fusable else None


class Vectorized(Shell):
    """What the Vectorize* wrappers share: Gymnasium's single-env ``wrapper`` built over an
    env of ``env``'s single spaces."""

    def __init__(self, env: VectorEnv, wrapper: type[gym.Wrapper], **kwargs: Any) -> None:
        name, _ = self._start(env, wrapper=wrapper, **kwargs)
        callable_argument(name, "wrapper", wrapper)
        if "func" in kwargs:  # Gymnasium's Transform* wrappers take it unchecked
            callable_argument(name, "func", kwargs["func"])
        spaces = SpacesOnly(env.single_observation_space, env.single_action_space)
        self.wrapper: Any = wrapper(spaces, **kwargs)
        # (Gymnasium's observation base refuses SAME_STEP)
        VectorWrapper.__init__(self, env)  # type: ignore[arg-type]

    def _rows(self, fn: Callable[[Any], Any], batch: Any, like: Any) -> Any:
        """``fn`` of each row of ``batch``, stacked in ``like``'s dtype (see ``map_rows``)."""
        try:
            return map_rows(fn, batch, like)
        except TypeError as e:
            if "the rows come out as" not in str(e):
                raise
            raise TypeError(f"{wrapper_name(self)}: {e} (Gymnasium's cast refuses it)") from None


class VectorizeTransformObservation(Vectorized, VectorWrapper):
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
        super().__init__(env, wrapper, **kwargs)
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
        # Gymnasium writes the rows into the batch where the space stays: its dtype then
        like = observations if self.same_out else self._like
        return self._rows(self.wrapper.observation, observations, like)


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

    __init__ = transform_observation.FilterObservation.__init__


class FlattenObservation(VectorObservationMap):
    """:class:`anywrap.FlattenObservation` for a vector env; the batch takes the flat
    space's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.FlattenObservation(gym.make_vec("Blackjack-v1", 3)).reset()[0].shape
        (3, 45)
    """

    __init__ = transform_observation.FlattenObservation.__init__
    _mapped = transform_observation.FlattenObservation._mapped


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

    __init__ = transform_observation.GrayscaleObservation.__init__


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

    __init__ = transform_observation.ResizeObservation.__init__


class ReshapeObservation(VectorObservationMap):
    """:class:`anywrap.ReshapeObservation` for a vector env; the batch takes the space's
    dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = anywrap.vector.ReshapeObservation(gym.make_vec("CartPole-v1", 3), (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)
    """

    __init__ = transform_observation.ReshapeObservation.__init__


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

    __init__ = transform_observation.RescaleObservation.__init__


class DtypeObservation(VectorObservationMap):
    """:class:`anywrap.DtypeObservation` for a vector env (``info["final_obs"]`` cast too).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.DtypeObservation(gym.make_vec("CartPole-v1", 2), np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')
    """

    __init__ = transform_observation.DtypeObservation.__init__


class TransformAction(FusedStep, gym.wrappers.vector.TransformAction):
    """:class:`gymnasium.wrappers.vector.TransformAction`, with anywrap's checks: ``func``
    maps every batch of actions, which pass untouched.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", 2)
        >>> anywrap.vector.TransformAction(envs, lambda a: 0.3 * a).actions(np.ones((2, 1)))
        array([[0.3],
               [0.3]])
    """

    def __init__(
        self,
        env: VectorEnv,
        func: Callable[[Any], Any],
        action_space: gym.Space | None = None,
        single_action_space: gym.Space | None = None,
    ) -> None:
        check_env_kind(self, env)
        callable_argument("anywrap.vector.TransformAction", "func", func)
        super().__init__(env, func, action_space, single_action_space)

    reset = checked_reset(gym.wrappers.vector.TransformAction.reset)
    _before_step, _part = VectorActionMap._before_step, VectorActionMap._part


class VectorizeTransformAction(Vectorized, VectorActionWrapper):
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
        super().__init__(env, wrapper, **kwargs)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.same_out = self.action_space == self.env.action_space
        self._like = create_empty_array(self.env.single_action_space, 1)

    def actions(self, actions: Any) -> Any:
        if type(actions) is list:  # a host value, as every wrapper takes it
            actions = np.asarray(actions)
        return self._rows(self.wrapper.action, actions, actions if self.same_out else self._like)


class ClipAction(VectorActionMap):
    """:class:`anywrap.ClipAction` for a vector env; the clipped batch takes the action
    space's dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=3, vectorization_mode="sync")
        >>> anywrap.vector.ClipAction(envs).actions(np.array([[5.0], [-0.25], [-3.0]]))
        array([[ 1.  ],
               [-0.25],
               [-1.  ]], dtype=float32)
    """

    _state = None  # not a checkpoint layer (as in 0.1)
    __init__ = transform_action.ClipAction.__init__


class RescaleAction(VectorActionMap):
    """:class:`anywrap.RescaleAction` for a vector env; the batch sent to the env takes the
    env's action dtype (Gymnasium's quirk).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> anywrap.vector.RescaleAction(envs, 0.0, 1.0).actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)
    """

    __init__ = transform_action.RescaleAction.__init__


class TransformReward(FusedStep, gym.wrappers.vector.TransformReward):
    """:class:`gymnasium.wrappers.vector.TransformReward`, with anywrap's checks: ``func``
    maps every batch of rewards, which pass untouched. On device arrays ``func`` joins the
    stack's one program a step, as :class:`TransformObservation`'s does.

    Example:
        >>> import gymnasium as gym, anywrap, numpy as np
        >>> envs = anywrap.vector.TransformReward(gym.make_vec("CartPole-v1", 2), lambda r: 2 * r)
        >>> envs.rewards(np.array([1.0, 0.5]))
        array([2., 1.])
    """

    def __init__(self, env: VectorEnv, func: Callable[[Any], Any]) -> None:
        callable_argument("anywrap.vector.TransformReward", "func", func)
        super().__init__(env, func)

    reset = checked_reset(gym.wrappers.vector.TransformReward.reset)
    autoreset_mode = autoreset_mode_property()
    _after_step = VectorRewardMap._after_step

    def _part(self, out: Any) -> Part | None:
        own = type(self).rewards is gym.wrappers.vector.TransformReward.rewards
        fusable = own and getattr(type(self.func), "__hash__", None)
        return Part(Piece(self.func, "reward", stateful=False)) if fusable else None


class VectorizeTransformReward(Vectorized, VectorRewardWrapper):
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

    __init__ = Vectorized.__init__

    def rewards(self, rewards: Any) -> Any:
        return self._rows(self.wrapper.reward, rewards, rewards)


class ClipReward(VectorRewardMap):
    """:class:`anywrap.ClipReward` for a vector env; the rewards keep their dtype, as in
    Gymnasium (which writes them back into the env's array: never done here).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        >>> anywrap.vector.ClipReward(envs, 0.0, 0.5).rewards(np.array([1.0, -1.0]))
        array([0.5, 0. ])
    """

    __init__ = transform_reward.ClipReward.__init__
