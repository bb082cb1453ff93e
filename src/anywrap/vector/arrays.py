"""Stateless array wrappers for vector envs: RescaleAction, RescaleObservation,
ClipReward, DtypeObservation, FlattenObservation, ReshapeObservation.

Each maps the whole batch with one transform call (one compiled call on
JAX), where Gymnasium's vector versions loop over the sub-envs. As in
Gymnasium, the result takes the dtype of the wrapper's space (Gymnasium
writes each sub-env's result into an array of that dtype), and in SAME_STEP
mode ``info["final_obs"]`` is mapped too.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorActionWrapper, VectorEnv, VectorRewardWrapper, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap import xp as axp
from anywrap.shell.actions import ActionBounds, observing_reset
from anywrap.shell.arrays import LibraryConstants, MapsObservations, RescalesBox, map_both
from anywrap.shell.base import Shell
from anywrap.shell.checks import wrapper_name
from anywrap.transforms import arrays
from anywrap.transforms.rescale import affine, affine_inverse
from anywrap.tree import first_leaf
from anywrap.wrappers.arrays import _bound, check_reward_bounds, dtype_space, reshape_space

__all__ = [
    "ClipReward",
    "DtypeObservation",
    "FlattenObservation",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
]


class _ObservationMap(MapsObservations, VectorWrapper, Shell):
    """A batch map of the observations (and of ``info["final_obs"]``), in the space's dtype."""

    def __init__(self, env: VectorEnv, single: gym.Space, **arguments: Any) -> None:
        """Record the subclass's constructor ``arguments`` (a call that recorded them
        already wins), wrap ``env`` and give it the single observation space ``single``."""
        VectorWrapper.__init__(self, env)
        self.single_observation_space = single
        self.observation_space = batch_space(single, self.num_envs)
        self._dtype = np.dtype(single.dtype).name if single.dtype is not None else ""
        self._fns: dict[Any, Any] = {}

    def _transform(self, obs: Any, *consts: Any, dtype: Any) -> Any:
        raise NotImplementedError

    def _consts_for(self, obs: Any) -> tuple[Any, ...]:
        """Constants the transform takes, in the library of ``obs`` (never made while tracing)."""
        return ()

    def _compiled(self, obs: Any, both: bool) -> Any:
        """The transform into the space's dtype for batches like ``obs`` (of two batches
        at once with ``both``): compiled once per dtype, except on NumPy."""
        leaf = first_leaf(obs)
        xp = axp.namespace(leaf)
        dtype = axp.resolve_dtype(xp, self._dtype, axp.device(leaf))
        fn: Any = self._fns.get((dtype, both))
        if fn is None:
            fn = partial(self._transform, dtype=dtype)
            fn = partial(map_both, fn) if both else fn
            fn = self._fns[(dtype, both)] = fn if xp is np else axp.Compiled(fn, 0)
        return fn

    def observations(self, observations: Any) -> Any:
        """The batch mapped, in the wrapper space's dtype (host or device)."""
        fn = self._compiled(observations, both=False)
        return fn(observations, *self._consts_for(observations))

    def _observations_and_final(self, obs: Any, final: Any) -> tuple[Any, Any]:
        out, final = self._compiled(obs, both=True)(obs, final, *self._consts_for(obs))
        return out, final


class RescaleObservation(RescalesBox, _ObservationMap, Shell):
    """Affinely rescales each sub-env's Box observation to ``[min_obs, max_obs]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleObservation`; see
    :class:`anywrap.RescaleObservation` for the map. One transform call per
    batch; the result takes the Box's dtype, as in Gymnasium.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleObservation(envs, 0.0, 1.0)
        >>> obs, _ = envs.reset(seed=0)
        >>> obs.shape, bool(((obs >= 0) & (obs <= 1)).all())
        ((2, 2), True)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_obs: Any, max_obs: Any) -> None:
        """Wrap ``env`` (a Box single observation space)."""
        box = self._rescale(env.single_observation_space, min_obs, max_obs, "obs")
        _ObservationMap.__init__(self, env, box)

    def _transform(self, obs: Any, *consts: Any, dtype: Any) -> Any:
        gradient, intercept = consts
        return affine(obs, gradient, intercept, dtype)


class DtypeObservation(_ObservationMap, Shell):
    """Casts each sub-env's observation to ``dtype``.

    Drop-in for :class:`gymnasium.wrappers.vector.DtypeObservation`; see
    :class:`anywrap.DtypeObservation`.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.DtypeObservation(envs, np.float16)
        >>> envs.reset(seed=0)[0].dtype
        dtype('float16')

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        space = dtype_space(wrapper_name(self), env.single_observation_space, dtype)
        _ObservationMap.__init__(self, env, space, dtype=dtype)
        self.dtype = dtype

    def _transform(self, obs: Any, *consts: Any, dtype: Any) -> Any:
        return arrays.cast(obs, dtype)


class FlattenObservation(_ObservationMap, Shell):
    """Flattens each sub-env's observation into one 1-D array (a batch of them).

    Drop-in for :class:`gymnasium.wrappers.vector.FlattenObservation`; see
    :class:`anywrap.FlattenObservation` for the spaces it takes. Unlike
    Gymnasium's, it never writes into the env's observation array.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("Blackjack-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.FlattenObservation(envs)
        >>> envs.reset(seed=0)[0].shape
        (3, 45)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv) -> None:
        """Wrap ``env``."""
        plan = arrays.flatten_plan(env.single_observation_space, wrapper_name(self))
        _ObservationMap.__init__(
            self, env, gym.spaces.utils.flatten_space(env.single_observation_space)
        )
        self._plan = plan

    def _transform(self, obs: Any, *consts: Any, dtype: Any) -> Any:
        return arrays.cast(arrays.flatten_observation(obs, self._plan, batch_ndim=1), dtype)


class ReshapeObservation(_ObservationMap, Shell):
    """Reshapes each sub-env's Box observation to ``shape``.

    Drop-in for :class:`gymnasium.wrappers.vector.ReshapeObservation`; see
    :class:`anywrap.ReshapeObservation`.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
        >>> envs = anywrap.vector.ReshapeObservation(envs, (2, 2))
        >>> envs.reset(seed=0)[0].shape
        (3, 2, 2)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, shape: int | tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box single observation space); ``shape``: a tuple of ints."""
        space = reshape_space(wrapper_name(self), env.single_observation_space, shape)
        _ObservationMap.__init__(self, env, space, shape=shape)
        self.shape = shape

    def _transform(self, obs: Any, *consts: Any, dtype: Any) -> Any:
        shape: tuple[int, ...] = self.single_observation_space.shape  # type: ignore[assignment]
        return arrays.cast(arrays.reshape_observation(obs, shape, batch_ndim=1), dtype)


class RescaleAction(RescalesBox, VectorActionWrapper, Shell):
    """Affinely rescales each sub-env's Box action space to ``[min_action, max_action]``.

    Drop-in for :class:`gymnasium.wrappers.vector.RescaleAction`; see
    :class:`anywrap.RescaleAction` for the map. The batch sent to the env takes
    the env's action dtype (a Gymnasium quirk kept for parity: it writes each
    sub-env's action into an array of that dtype). A batch of the wrong
    shape, library or device is refused with a clear error.

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("MountainCarContinuous-v0", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.RescaleAction(envs, 0.0, 1.0)
        >>> envs.actions(np.array([[0.0], [0.75]]))
        array([[-1. ],
               [ 0.5]], dtype=float32)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_action: Any, max_action: Any) -> None:
        """Wrap ``env`` (a Box single action space)."""
        box = self._rescale(env.single_action_space, min_action, max_action, "action")
        VectorActionWrapper.__init__(self, env)
        self.single_action_space = box
        self.action_space = batch_space(box, self.num_envs)
        self._bounds = ActionBounds(self, box, (self.num_envs,))
        self._env_dtype = np.dtype(env.single_action_space.dtype).name
        self._maps: dict[Any, Any] = {}

    reset = observing_reset

    def actions(self, actions: Any) -> Any:
        """The batch of actions mapped back onto the env's bounds."""
        actions, *_ = self._bounds.check(actions)
        xp = axp.namespace(actions)
        dtype = axp.resolve_dtype(xp, self._env_dtype, axp.device(actions))
        fn = self._maps.get(dtype)
        if fn is None:
            fn = partial(affine_inverse, dtype=dtype)
            fn = self._maps[dtype] = fn if xp is np else axp.Compiled(fn, 0)
        return fn(actions, *self._consts_for(actions))


class ClipReward(VectorRewardWrapper, Shell):
    """Clips each sub-env's reward to ``[min_reward, max_reward]``, in the rewards' library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipReward`. The rewards
    keep their dtype (Gymnasium writes the clipped values back into the
    reward array), and are never written in place here.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ClipReward(envs, 0.0, 0.5)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[1]
        array([0.5, 0.5])

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(self, env: VectorEnv, min_reward: Any = None, max_reward: Any = None) -> None:
        """Wrap ``env``; ``min_reward`` / ``max_reward``: numbers, arrays or ``None``."""
        owner = "anywrap.vector.ClipReward"
        check_reward_bounds(owner, min_reward, max_reward)
        VectorRewardWrapper.__init__(self, env)
        self.min_reward, self.max_reward = min_reward, max_reward
        self._consts = LibraryConstants(owner, low=_bound(min_reward), high=_bound(max_reward))
        self._clips: dict[Any, Any] = {}

    def rewards(self, rewards: Any) -> Any:
        """The rewards clipped, in their own dtype."""
        k = self._consts.get(rewards)
        dtype = getattr(rewards, "dtype", None)
        fn = self._clips.get(dtype)
        if fn is None:
            fn = partial(arrays.clip_reward, dtype=dtype)
            fn = self._clips[dtype] = fn if axp.is_host(rewards) else axp.Compiled(fn, 0)
        return fn(rewards, k["low"], k["high"])
