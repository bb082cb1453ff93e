"""Stateful observation wrappers for one env, and the state shells the vector ones share."""

from functools import partial
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from anywrap import xp
from anywrap.distributed import torch_allreduce_sum
from anywrap.shell.arrays import LibraryConstants, box_check, checked
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_epsilon,
    check_stats_dtype,
    flag,
    step_values,
    whole_number,
    wrapper_name,
)
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.delay_observation import DelayRing, check_delay, host_scalars, zero_observation
from anywrap.shell.images import (
    InPlaceState,
    box_space,
    check_frames,
    check_positive_int,
    padding_of,
)
from anywrap.shell.spaces import (
    ObservationCheck,
    leaf_boxes,
    map_space,
    observation_stats,
    unbounded_float32,
)
from anywrap.shell.statistics import statistics_property, switch_property
from anywrap.shell.time import AUTORESET, find_max_steps, time_aware_space
from anywrap.transforms import delay_observation as D
from anywrap.transforms import frame_stack_observation as FS
from anywrap.transforms import max_and_skip_observation as MS
from anywrap.transforms import normalize_observation as N
from anywrap.transforms.frame_stack_observation import FrameStack
from anywrap.transforms.time_aware_observation import show_time, time_aware, time_aware_reset
from anywrap.transforms.time_limit import init_clock
from anywrap.tree import leaves
from anywrap.wrappers.common import reset_env, state_field


class DelayShell(DelayRing):
    """What the single and vector DelayObservation share: the constructor and reset."""

    def __init__(self, env: Any, delay: int) -> None:
        """Wrap ``env``; ``delay`` >= 0 steps."""
        name, batch = self._start(env, delay=delay)
        single = self._single_space(env)
        delay = check_delay(name, delay)
        zero = zero_observation(name, single)
        self._wrap(env)
        self.delay, self._ranges = delay, {"count": (0, delay + 1)}
        self._check = box_check(name, single, *batch)
        self._zero = LibraryConstants(name, zero)
        self._state = D.init_delay(zero, delay=delay, batch_shape=batch, xp=np)
        # Gymnasium gives a single env's 0-d leaf (a Discrete's) as a NumPy scalar.
        self._scalars = not batch and any(np.ndim(z) == 0 for z in leaves(zero))
        self._mode = autoreset_mode(name, env) if batch else None
        release = partial(D.release, delay=delay, next_step=self._mode is AutoresetMode.NEXT_STEP)
        final = partial(D.release_with_final, delay=delay)
        self._transforms = compiled({"release": release, "final": final, "reset": D.reset_delay})

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = reset_env(self, seed, options)
        zero = self._zero.get(checked(self._check, obs))
        return self._released(self._run(self._transforms["reset"], obs, obs, *zero, mask)), info

    def _released(self, out: Any) -> Any:
        return host_scalars(out) if self._scalars else out


class DelayObservation(DelayShell, gym.ObservationWrapper):
    """Returns the observation of ``delay`` steps ago (the space's zero until there is one):
    :class:`gymnasium.wrappers.DelayObservation`, the queue a ring on the env's device.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.DelayObservation(gym.make("CartPole-v1"), delay=2).reset(seed=0)[0]
        array([0., 0., 0., 0.], dtype=float32)
    """

    def observation(self, observation: Any) -> Any:
        if not self.delay:
            return checked(self._check, observation)
        zero = self._zero.get(checked(self._check, observation))
        return self._released(self._turn_ring("release", observation, *zero))


class TimeAwareShell(Shell):
    """What the single and vector TimeAwareObservation share: the constructor and reset."""

    def __init__(
        self,
        env: Any,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        name, batch = self._start(
            env,
            flatten=flatten,
            normalize_time=normalize_time,
            dict_time_key=dict_time_key,
            max_timesteps=max_timesteps,
        )
        single = self._single_space(env)
        if max_timesteps is None:
            steps = find_max_steps(name, env)
        else:
            steps = whole_number(name, "max_timesteps", max_timesteps, 1)
        space, feature = time_aware_space(
            name, single, steps, normalize_time, dict_time_key, flatten, batch_ndim=len(batch)
        )
        self._wrap(env, space)
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps
        self._check = box_check(name, single, *batch)
        self._state = init_clock(batch, xp=np)
        fns: dict[str, Any] = {"step": time_aware, "reset": time_aware_reset, "show": show_time}
        if batch:
            self._mode = autoreset_mode(name, env)
            fns["step"] = partial(time_aware, autoreset=AUTORESET[self._mode])
        self._transforms = compiled({k: partial(fn, feature=feature) for k, fn in fns.items()})

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = reset_env(self, seed, options)
        return self._run(self._transforms["reset"], obs, checked(self._check, obs), mask), info


class TimeAwareObservation(TimeAwareShell, gym.ObservationWrapper):
    """Adds the episode's step count to every observation, counted on the data's device:
    :class:`gymnasium.wrappers.TimeAwareObservation`, quirk included (flattening a float32
    observation with the int32 count gives float64); ``max_timesteps`` may be given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.TimeAwareObservation(gym.make("CartPole-v1"))
        >>> _ = env.reset(seed=0)
        >>> env.step(0)[0][-1]
        np.float64(1.0)
    """

    timesteps = state_field("elapsed", "Steps taken this episode (read on the host).", int)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        out, _ = self._run(self._transforms["step"], obs, checked(self._check, obs))
        return out, reward, terminated, truncated, info

    def observation(self, observation: Any) -> Any:
        return self._run(self._transforms["show"], observation, checked(self._check, observation))


def _one_env(fn: Any, state: FrameStack, obs: Any, *args: Any, **kw: Any) -> tuple[FrameStack, Any]:
    """A frame-stack transform ``fn`` for one env: its observation as a batch of one."""
    state, out = fn(state, obs[None, ...], *args, **kw)
    return state, out[0, ...]


def _push(
    state: FrameStack, obs: Any, terminated: Any, truncated: Any, *, pad_with_first: bool, mode: Any
) -> tuple[FrameStack, Any]:
    """A vector step: after a done, the next frame (NEXT_STEP) or this one (SAME_STEP)
    starts a new stack; DISABLED envs restart a stack only when reset."""
    done = terminated | truncated
    when = {AutoresetMode.NEXT_STEP: {"done": done}, AutoresetMode.SAME_STEP: {"start": done}}
    return FS.push_frame(state, obs, pad_with_first=pad_with_first, **when.get(mode, {}))


def _push_final(
    state: FrameStack, obs: Any, final: Any, terminated: Any, truncated: Any, **kw: Any
) -> tuple[FrameStack, tuple[Any, Any]]:
    """A SAME_STEP step with final observations: ``(stacks, final stacks)``."""
    state, out, final = FS.push_frame_with_final(state, obs, final, terminated | truncated, **kw)
    return state, (out, final)


class FrameStackShell(InPlaceState, Shell):
    """What the single and vector FrameStackObservation share: the constructor and reset."""

    def __init__(self, env: Any, stack_size: int, *, padding_type: str | Any = "reset") -> None:
        name, batch = self._start(env, stack_size=stack_size, padding_type=padding_type)
        stack_size = check_positive_int(name, "stack_size", stack_size, 1)
        space = box_space(name, self._single_space(env))
        kind, self.padding_value = padding_of(name, space, padding_type)
        self._wrap(env, batch_space(space, n=stack_size))
        self.stack_size, self.padding_type = stack_size, kind
        self._ranges = {"newest": (0, stack_size - 1), "count": (0, stack_size)}
        self._shape, self._dtype = (*batch, *space.shape), space.dtype
        custom = None if kind == "reset" else self.padding_value
        n = batch[0] if batch else 1  # one env: a batch of one
        self._state = FS.init_frame_stack(
            n, stack_size, space.shape, xp=np, dtype=space.dtype, padding=custom
        )
        fns: dict[str, Any] = {"reset": FS.reset_frame_stack, "step": FS.push_frame}
        if batch:
            self._mode = autoreset_mode(name, env)
            fns = {**fns, "step": partial(_push, mode=self._mode), "final": _push_final}
        else:
            fns = {k: partial(_one_env, fn) for k, fn in fns.items()}
        first = kind == "reset"
        transforms: dict[str, Any] = {k: partial(fn, pad_with_first=first) for k, fn in fns.items()}
        self._transforms = compiled(transforms, donate=tuple(transforms))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info, mask = reset_env(self, seed, options)
        check_frames(self, obs, self._shape, into=self._dtype)
        return self._run(self._transforms["reset"], obs, obs, mask), info


class FrameStackObservation(FrameStackShell, gym.Wrapper):
    """Stacks the last ``stack_size`` observations, oldest first, in a ring on the env's
    device: :class:`gymnasium.wrappers.FrameStackObservation` (Box spaces).

    Args:
        stack_size: How many observations to stack (at least 1).
        padding_type: ``"reset"``, ``"zero"`` or an observation of the env's space.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.FrameStackObservation(gym.make("CartPole-v1"), 3, padding_type="zero")
        >>> env.reset(seed=123)[0][:, 0]
        array([0.        , 0.        , 0.01823519], dtype=float32)
    """

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        check_frames(self, obs, self._shape, into=self._dtype)
        return self._run(self._transforms["step"], obs, obs), reward, terminated, truncated, info


class ObservationStatisticsShell(Shell):
    """What the single and vector NormalizeObservation share."""

    obs_rms = statistics_property("obs_rms")
    update_running_mean = switch_property()
    _update_running_mean: bool

    def _setup(self, env: Any, **args: Any) -> None:
        name, batch = self._start(env, **args)
        single = self._single_space(env)
        epsilon = check_epsilon(name, args["epsilon"])
        stats_dtype, stats_gradient = args["stats_dtype"], args["stats_gradient"]
        check_stats_dtype(name, stats_dtype)
        leaf_boxes(name, single)
        self._wrap(env, map_space(unbounded_float32, single))
        self.epsilon, self.stats_dtype = epsilon, stats_dtype
        self.update_running_mean = args["update_running_mean"]
        self._check = ObservationCheck(name, single, *batch)
        self._state = observation_stats(single, stats_dtype)
        self._boxed = True
        self.stats_gradient = flag(name, "stats_gradient", stats_gradient)
        self._mode = autoreset_mode(name, env) if batch else None
        group = args.get("process_group")
        reduce = None if group is None else torch_allreduce_sum(group)
        learn_final = bool(args.get("learn_final_obs"))
        kw = {"epsilon": epsilon, "reduce": reduce, "stats_gradient": stats_gradient}
        step = partial(N.normalize_observation, batched=bool(batch), **kw)
        final = partial(N.normalize_observation_with_final, learn_final=learn_final, **kw)
        fns: dict[Any, Any] = {u: partial(step, update=u) for u in (True, False)}
        fns.update({("final", u): partial(final, update=u) for u in (True, False)})
        self._transforms = compiled(fns)

    def _check_step(self, obs: Any, *flags: Any) -> None:
        checked(self._check, obs)


class NormalizeObservation(ObservationStatisticsShell, gym.ObservationWrapper):
    """Normalises observations to zero mean and unit variance, on any array library.

    .. math:: \\tilde o = (o - \\mu) / \\sqrt{\\sigma^2 + \\epsilon}

    with :math:`\\mu, \\sigma^2` the running mean and variance of every observation so far,
    the current one included: :class:`gymnasium.wrappers.NormalizeObservation`'s space,
    attributes and numbers. Dict and Tuple spaces of Boxes are normalised leaf by leaf; an
    observation with a non-finite entry is left out of the statistics.

    Args:
        epsilon: Added to the variance under the square root (strictly positive).
        stats_dtype: dtype of the statistics; default Gymnasium's (float32 for float32
            observations, else float64).
        update_running_mean: Whether the statistics learn (also a settable attribute).
        stats_gradient: Whether gradients flow through the statistics update too
            (see the guide "Gradients").

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> env = anywrap.NormalizeObservation(gym.make("Pendulum-v1"))
        >>> obs, _ = env.reset(seed=0)
        >>> for t in range(200):
        ...     obs, *_ = env.step(np.array([2 * np.sin(t / 10)], np.float32))
        >>> float(env.obs_rms.count), obs.round(4)
        (201.0001, array([-1.4907,  0.0871, -1.4553], dtype=float32))
    """

    def __init__(
        self,
        env: gym.Env,
        epsilon: float = 1e-8,
        *,
        stats_dtype: str | None = None,
        update_running_mean: bool = True,
        stats_gradient: bool = False,
    ) -> None:
        self._setup(
            env,
            epsilon=epsilon,
            stats_dtype=stats_dtype,
            update_running_mean=update_running_mean,
            stats_gradient=stats_gradient,
        )

    def observation(self, observation: Any) -> Any:
        self._check_step(observation)
        return self._run(self._transforms[self._update_running_mean], observation, observation)


class MaxAndSkipShell(InPlaceState, Shell):
    """What the single and vector MaxAndSkipObservation share: the constructor."""

    def __init__(self, env: Any, skip: int = 4) -> None:
        name, batch = self._start(env, skip=skip)
        self._skip = check_positive_int(name, "skip", skip, 2)
        space = box_space(name, self._single_space(env))
        self._mode = autoreset_mode(name, env) if batch else None
        if self._mode is AutoresetMode.DISABLED:
            raise ValueError(
                f"{name}: expected a vector env that resets itself (NEXT_STEP or "
                "SAME_STEP), got DISABLED: a sub-env whose episode ends within the skip "
                "would be stepped again before anyone resets it. Skip frames inside each "
                "sub-env instead (gymnasium.make_vec(..., wrappers=[MaxAndSkipObservation]))"
            )
        self._wrap(env)
        self._shape = (*batch, *space.shape)
        self._state = MS.init_max_frames(batch, space.shape, xp=np, dtype=space.dtype)
        step = MS.max_and_skip if batch else MS.max_of_two
        fns = {"reset": with_no_output(MS.reset_max_frames), "step": step}
        self._transforms = compiled(fns, donate=tuple(fns))


class MaxAndSkipObservation(MaxAndSkipShell, gym.Wrapper):
    """Repeats each action ``skip`` times; returns the maximum of the last two frames and the
    summed reward, on any array library: :class:`gymnasium.wrappers.MaxAndSkipObservation`
    (Box spaces), quirks included: the loop stops at a done, and the two-frame buffer is never
    cleared (a call that ends early returns frames left from an earlier call).

    Args:
        skip: How many times each action is repeated (at least 2).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.MaxAndSkipObservation(gym.make("CartPole-v1"), skip=2)
        >>> _ = env.reset(seed=123)
        >>> env.step(1)[1]  # the sum of 2 rewards
        2.0
    """

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        total_reward: Any = 0.0
        device_rewards: list[Any] = []
        frames: list[Any] = [None, None]
        for i in range(self._skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            check_frames(self, obs, self._shape)
            step_values(wrapper_name(self), reward, terminated, truncated, None)
            if i >= self._skip - 2:
                frames[i - (self._skip - 2)] = obs
            if xp.is_host(reward):
                total_reward += float(reward)
            else:
                device_rewards.append(reward)
            if terminated or truncated:
                break
        out, summed = self._run(self._transforms["step"], obs, *frames, tuple(device_rewards))
        if summed is not None:
            total_reward = summed + total_reward if total_reward else summed
        return out, total_reward, terminated, truncated, info
