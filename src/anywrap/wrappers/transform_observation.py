"""Observation wrappers for one env: transform, filter, flatten, images, rescale, render, bins."""

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.arrays import box_check, dtype_space, rescaled_box, reshape_space
from anywrap.shell.checks import (
    autoreset_mode,
    callable_argument,
    check_env_kind,
    checked_reset,
    flag,
)
from anywrap.shell.images import frames_check, grayscale_map, resize_map
from anywrap.shell.maps import ObservationMap
from anywrap.shell.spaces import ObservationCheck
from anywrap.transforms.discretize import BinPlan, bin_plan, discretize
from anywrap.transforms.dtype_observation import cast
from anywrap.transforms.filter_observation import filter_observation
from anywrap.transforms.flatten_observation import FlatPlan, flatten_observation, flatten_plan
from anywrap.transforms.rescale import affine
from anywrap.transforms.reshape_observation import reshape_observation
from anywrap.tree import get_at


class TransformObservation(gym.wrappers.TransformObservation):
    """:class:`gymnasium.wrappers.TransformObservation`, with anywrap's checks: ``func`` maps
    every observation, which passes untouched.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.TransformObservation(gym.make("CartPole-v1"), lambda o: o * 0, None)
        >>> env.reset(seed=0)[0]
        array([ 0., -0., -0., -0.], dtype=float32)
    """

    def __init__(
        self, env: gym.Env, func: Callable[[Any], Any], observation_space: gym.Space | None
    ) -> None:
        callable_argument("anywrap.TransformObservation", "func", func)
        super().__init__(env, func, observation_space)

    reset = checked_reset(gym.wrappers.TransformObservation.reset)


class SpacesOnly(gym.Env):
    """An env that is its spaces only, for building Gymnasium's version of a wrapper."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space | None = None) -> None:
        self.observation_space = observation_space
        self.action_space = action_space if action_space is not None else gym.spaces.Discrete(1)


def filter_map(owner: str, space: gym.Space, filter_keys: Any) -> tuple[gym.Space, Any, Any]:
    """Gymnasium's filtered space (its argument checks, named ``owner``), the selection of
    ``filter_keys`` and a check that an observation has those entries."""
    try:
        filtered = gym.wrappers.FilterObservation(SpacesOnly(space), filter_keys).observation_space
    except (TypeError, ValueError) as e:
        raise type(e)(f"{owner}: {e}") from None
    keys = tuple(filter_keys)
    kind = dict if isinstance(keys[0], str) else tuple

    def check(obs: Any) -> None:
        if not isinstance(obs, kind) or not all(
            k in obs if kind is dict else -len(obs) <= k < len(obs) for k in keys
        ):
            got = type(obs).__name__ + (f" of {sorted(obs)}" if isinstance(obs, dict) else "")
            raise ValueError(
                f"{owner}: expected a {kind.__name__} observation with the entries "
                f"{list(keys)}, got {got if isinstance(obs, dict | tuple) else xp.describe(obs)}"
            )

    return filtered, partial(filter_observation, keys=keys), check


class FilterObservation(ObservationMap):
    """Keeps the entries ``filter_keys`` of a Dict (keys) or Tuple (indices) observation:
    :class:`gymnasium.wrappers.FilterObservation`, the arrays kept the env's own.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.TimeAwareObservation(gym.make("CartPole-v1"), flatten=False)
        >>> env = anywrap.FilterObservation(env, filter_keys=["time"])
        >>> env.reset(seed=42)
        ({'time': array([0], dtype=int32)}, {})
    """

    def __init__(self, env: Any, filter_keys: Sequence[str | int]) -> None:
        name, batch = self._start(env, filter_keys=filter_keys)
        space, fn, check = filter_map(name, self._single_space(env), filter_keys)
        self._wrap(env, space)
        self.filter_keys = filter_keys
        self._set_map(name, fn, check)
        self._map = fn  # a selection: nothing to compile (and jit would sort a dict's keys)
        if batch:
            self._both, self._check_entry = lambda o, f: (fn(o), fn(f)), check


def _flatten_batch(obs: Any, plan: FlatPlan, dtype: str) -> Any:
    return cast(flatten_observation(obs, plan, batch_ndim=1), dtype)


class FlattenObservation(ObservationMap):
    """Flattens every observation into one 1-D array, in the observation's library:
    :class:`gymnasium.wrappers.FlattenObservation` for Box, Discrete, MultiDiscrete,
    MultiBinary and Dict / Tuple spaces of them (Graph, Sequence and Text are refused).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.FlattenObservation(gym.make("Blackjack-v1")).observation_space
        Box(0, 1, (45,), int64)
    """

    def __init__(self, env: Any) -> None:
        name, batch = self._start(env)
        single = self._single_space(env)
        plan = flatten_plan(single, name)
        space = gym.spaces.utils.flatten_space(single)
        self._wrap(env, space)
        fn = partial(flatten_observation, plan=plan)
        if batch:  # Gymnasium's vector wrapper gives the space's dtype
            fn = partial(_flatten_batch, plan=plan, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, None)
        self._explain = ObservationCheck(name, single, *batch)
        self._one_hots = [leaf for leaf in plan.leaves if leaf.kind == "onehot"]

    def _mapped(self, x: Any) -> Any:
        """``x`` flattened; on failure, an error that says how ``x`` differs from the space."""
        try:
            out = self._map(x)
        except (KeyError, IndexError, TypeError, ValueError):
            self._explain(x)
            raise
        for leaf in self._one_hots:  # on the host, a value out of its range has no one-hot
            v = get_at(x, leaf.path)
            if xp.is_host(v):
                v = np.reshape(v, (-1, len(leaf.counts)))
                if ((v < leaf.starts) | (v >= np.add(leaf.starts, leaf.counts))).any():
                    raise IndexError(
                        f"{self._explain.owner}: expected values in the ranges of "
                        f"{self._explain.space}, got {x!r}"
                    )
        return out


class GrayscaleObservation(ObservationMap):
    """Converts RGB image observations to grayscale (on any library but TensorFlow):
    :class:`gymnasium.wrappers.GrayscaleObservation`, bit for bit on every backend.

    .. math:: y = \\lfloor 0.2125 r + 0.7154 g + 0.0721 b \\rfloor

    Args:
        env: An env of uint8 ``(H, W, 3)`` image observations (bounds 0 to 255).
        keep_dim: Keep a channel axis of size 1 (``(H, W, 1)``).

    Example:
        >>> import ale_py, gymnasium as gym, numpy as np, anywrap
        >>> gym.register_envs(ale_py)
        >>> env = anywrap.GrayscaleObservation(gym.make("ALE/Pong-v5"))
        >>> env.observation(np.full((210, 160, 3), 43, np.uint8))[0, :3]  # Gymnasium's 42
        array([42, 42, 42], dtype=uint8)
    """

    def __init__(self, env: Any, keep_dim: bool = False) -> None:
        name, batch = self._start(env, keep_dim=keep_dim)
        image = grayscale_map(name, self._single_space(env), keep_dim)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        self.keep_dim = keep_dim
        if batch:
            autoreset_mode(name, env)
            self._check_entry = frames_check(name, image.in_shape, "final observations")


class ResizeObservation(ObservationMap):
    """Resizes image observations to ``shape``, on any array library, without OpenCV:
    :class:`gymnasium.wrappers.ResizeObservation`. The default filter is OpenCV's
    ``INTER_AREA``, as Gymnasium's: exact on NumPy, within 1 on JAX and PyTorch.

    Args:
        env: An env of uint8 ``(H, W)`` or ``(H, W, C)`` images (bounds 0 to 255).
        shape: The new ``(height, width)``.
        interpolation: ``"area"`` (Gymnasium's filter) or ``"bilinear"``.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> anywrap.ResizeObservation(gym.make("ALE/Pong-v5"), (84, 84)).observation_space
        Box(0, 255, (84, 84, 3), uint8)
    """

    def __init__(self, env: Any, shape: tuple[int, int], *, interpolation: str = "area") -> None:
        name, batch = self._start(env, shape=shape, interpolation=interpolation)
        image = resize_map(name, self._single_space(env), shape, interpolation)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        self.shape, self.interpolation = image.space.shape[:2], interpolation
        if batch:
            autoreset_mode(name, env)
            self._check_entry = frames_check(name, image.in_shape, "final observations")


def _reshape_batch(obs: Any, shape: tuple[int, ...], dtype: str) -> Any:
    return cast(reshape_observation(obs, shape, batch_ndim=1), dtype)


class ReshapeObservation(ObservationMap):
    """Reshapes every Box observation to ``shape``, in the observation's library (a view
    where the library allows one): :class:`gymnasium.wrappers.ReshapeObservation`.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2)).reset(seed=0)[0].shape
        (2, 2)
    """

    def __init__(self, env: Any, shape: tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box observation space); ``shape``: a tuple of ints (one may be -1)."""
        name, batch = self._start(env, shape=shape)
        single = self._single_space(env)
        space = reshape_space(name, single, shape)
        self._wrap(env, space)
        self.shape = shape
        fn = partial(reshape_observation, shape=space.shape)
        if batch:  # Gymnasium's vector wrapper gives the space's dtype
            fn = partial(_reshape_batch, shape=space.shape, dtype=np.dtype(space.dtype).name)
        self._set_map(name, fn, box_check(name, single, *batch))


class RescaleObservation(ObservationMap):
    """Affinely rescales a Box observation space to ``[min_obs, max_obs]``, in the data's
    library: :class:`gymnasium.wrappers.RescaleObservation`, bit for bit on NumPy.

    .. math:: o' = g \\, o + c

    with Gymnasium's gradient ``g`` and intercept ``c``. An infinite bound of the env's Box
    must be given as the same infinity.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.RescaleObservation(gym.make("Pendulum-v1"), -1.0, 1.0).observation_space
        Box(-1.0, 1.0, (3,), float32)
    """

    def __init__(self, env: Any, min_obs: Any, max_obs: Any) -> None:
        """Wrap ``env`` (a Box observation space); ``min_obs`` / ``max_obs``: numbers or arrays."""
        name, batch = self._start(env, min_obs=min_obs, max_obs=max_obs)
        single = self._single_space(env)
        box, gradient, intercept = rescaled_box(name, single, min_obs, max_obs, "obs")
        self._wrap(env, box)
        # Gymnasium's vector wrapper casts to the Box's dtype
        fn = partial(affine, dtype=np.dtype(box.dtype).name if batch else None)
        self._set_map(name, fn, box_check(name, single, *batch), gradient, intercept)


class DtypeObservation(ObservationMap):
    """Casts every observation to ``dtype``: :class:`gymnasium.wrappers.DtypeObservation`
    (where there is no float64, as in JAX without x64, a float64 cast gives float32).

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> anywrap.DtypeObservation(gym.make("CartPole-v1"), np.float64).reset(seed=0)[0].dtype
        dtype('float64')
    """

    def __init__(self, env: Any, dtype: Any) -> None:
        """Wrap ``env``; ``dtype``: a NumPy dtype, scalar type or name."""
        name, _ = self._start(env, dtype=dtype)
        space = dtype_space(name, self._single_space(env), dtype)
        self._wrap(env, space)
        self.dtype = dtype
        self._set_map(name, partial(cast, dtype=np.dtype(space.dtype).name), None)


class AddRenderObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The env's rendered frame as the observation (``render_only``), or beside it in a dict:
    :class:`gymnasium.wrappers.AddRenderObservation`, taking frames of any library.

    Args:
        env: An env whose ``render_mode`` is neither None nor "human".
        render_only: The frame alone as the observation; else a dict of both.
        render_key: The frame's key in the dict.
        obs_key: The env's observation's key, where it is no dict itself.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> obs, _ = anywrap.AddRenderObservation(env, render_only=False).reset(seed=123)
        >>> sorted(obs), obs["pixels"].shape
        (['pixels', 'state'], (400, 600, 3))
    """

    def __init__(
        self,
        env: gym.Env,
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, render_only=render_only, render_key=render_key, obs_key=obs_key
        )
        check_env_kind(self, env)
        name = "anywrap.AddRenderObservation"
        render_only = flag(name, "render_only", render_only)
        if env.render_mode is None or env.render_mode == "human":
            raise ValueError(
                f"{name}: expected a render_mode other than None and 'human', got "
                f"{env.render_mode!r}"
            )
        env.reset()
        pixels: Any = env.render()
        if not hasattr(pixels, "shape") or isinstance(pixels, np.generic):
            raise TypeError(f"{name}: expected env.render() to return an array, got {type(pixels)}")
        gym.ObservationWrapper.__init__(self, env)
        pixel_space = gym.spaces.Box(0, 255, tuple(pixels.shape), np.uint8)
        space = env.observation_space
        if render_only:
            self.observation_space = pixel_space
        elif isinstance(space, gym.spaces.Dict):
            if render_key in space.spaces:
                raise ValueError(
                    f"{name}: expected a `render_key` not in the observation space, got "
                    f"{render_key!r}, which is there"
                )
            self.observation_space = gym.spaces.Dict(
                {render_key: pixel_space, **space.spaces}, sort_keys=space.sort_keys
            )
        else:
            self.observation_space = gym.spaces.Dict({obs_key: space, render_key: pixel_space})
        self.render_only, self.render_key, self.obs_key = render_only, render_key, obs_key

    reset = checked_reset(gym.ObservationWrapper.reset)

    def observation(self, observation: Any) -> Any:
        if self.render_only:
            return self.render()
        if isinstance(self.env.observation_space, gym.spaces.Dict):
            return {self.render_key: self.render(), **observation}
        return {self.obs_key: observation, self.render_key: self.render()}


def checked_bins(owner: str, space: Any, bins: Any, what: str) -> tuple[BinPlan, np.ndarray]:
    """The plan of ``bins`` over a finite Box ``space``, and the bins per dimension;
    Gymnasium's errors (a Box, finite bounds, one count per dimension), named."""
    if not isinstance(space, gym.spaces.Box):
        raise TypeError(f"{owner}: expected a Box {what} space, got {space}")
    low, high = np.ravel(space.low), np.ravel(space.high)
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        raise ValueError(
            f"{owner}: expected a finite {what} space to discretize, got low={low}, high={high}"
        )
    counts = list(bins) if isinstance(bins, tuple | list | np.ndarray) else [bins] * low.size
    if len(counts) != low.size or not all(
        isinstance(b, int | np.integer) and not isinstance(b, bool) and b >= 1 for b in counts
    ):
        raise ValueError(
            f"{owner}: expected `bins` to be an int >= 1 or one per dimension of the {what} "
            f"space ({low.size}), got {bins!r}"
        )
    return bin_plan(low, high, counts), np.array(counts)


def discrete_space(bins: np.ndarray, multidiscrete: bool) -> gym.Space:
    return (
        gym.spaces.MultiDiscrete(bins) if multidiscrete else gym.spaces.Discrete(int(np.prod(bins)))
    )


class DiscretizeObservation(ObservationMap):
    """Each observation of a finite Box space becomes the index of its uniform bin:
    :class:`gymnasium.wrappers.DiscretizeObservation`, in the observation's library and
    device (a NumPy env's flat index is a Python int, as Gymnasium's).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.DiscretizeObservation(gym.make("MountainCar-v0"), bins=10)
        >>> env.observation_space, env.reset(seed=42)[0]
        (Discrete(100), 45)
    """

    def __init__(self, env: gym.Env, bins: int | tuple[int, ...], multidiscrete: bool = False):
        name, _ = self._start(env, bins=bins, multidiscrete=multidiscrete)
        multidiscrete = flag(name, "multidiscrete", multidiscrete)
        plan, self.bins = checked_bins(name, env.observation_space, bins, "observation")
        space: Any = env.observation_space
        self._wrap(env, discrete_space(self.bins, multidiscrete))
        self.low, self.high = np.ravel(space.low), np.ravel(space.high)
        self.n_dims, self.multidiscrete = int(self.low.size), multidiscrete
        self.bin_edges = [g[1:-1] for g in plan.grids]
        self._grids = plan.grids
        fn = partial(discretize, shape=tuple(space.shape), multidiscrete=multidiscrete)
        self._set_map(name, fn, ObservationCheck(name, space), *plan.observation)

    def observation(self, observation: Any) -> Any:
        out = self._mapped(observation)
        return int(out) if not self.multidiscrete and xp.is_host(out) else out

    def revert_observation(self, obs: Any) -> tuple[np.ndarray, np.ndarray]:
        """The edges ``(lows, highs)`` of the bin ``obs`` names (read on the host):
        Gymnasium's inverse of :meth:`observation`, for tests and analysis."""
        obs = xp.to_numpy(obs)
        index = (
            np.asarray(obs, dtype=int)
            if self.multidiscrete
            else np.unravel_index(int(obs), tuple(self.bins))
        )
        dtype = self.env.observation_space.dtype
        lows = np.array([g[i] for g, i in zip(self._grids, index)], dtype=dtype)
        highs = np.array([g[i + 1] for g, i in zip(self._grids, index)], dtype=dtype)
        return lows, highs
