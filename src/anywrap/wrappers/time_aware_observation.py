"""TimeAwareObservation for a single env, and the class both shells share."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.arrays import box_check, checked
from anywrap.shell.base import Shell
from anywrap.shell.checks import autoreset_mode, whole_number
from anywrap.shell.compiled import compiled
from anywrap.shell.time import AUTORESET, find_max_steps, time_aware_space
from anywrap.transforms.time_aware_observation import show_time, time_aware, time_aware_reset
from anywrap.transforms.time_limit import init_clock


class TimeAwareShell(Shell):
    """What the single and vector TimeAwareObservation share: the constructor."""

    def __init__(
        self,
        env: Any,
        flatten: bool = True,
        normalize_time: bool = False,
        *,
        dict_time_key: str = "time",
        max_timesteps: int | None = None,
    ) -> None:
        """Wrap ``env``; see :class:`anywrap.TimeAwareObservation` for the arguments."""
        name, batch = self._start(
            env,
            flatten=flatten,
            normalize_time=normalize_time,
            dict_time_key=dict_time_key,
            max_timesteps=max_timesteps,
        )
        single = self._single_space(env)
        steps = (
            find_max_steps(name, env)
            if max_timesteps is None
            else whole_number(name, "max_timesteps", max_timesteps, 1)
        )
        space, feature = time_aware_space(
            name, single, steps, normalize_time, dict_time_key, flatten, batch_ndim=len(batch)
        )
        self._wrap(env, space)
        self.flatten, self.normalize_time, self.max_timesteps = flatten, normalize_time, steps
        self._check = box_check(name, single, *batch)
        self._state = init_clock(batch, xp=np)
        if batch:
            self._mode = autoreset_mode(name, env)
        mode: dict[str, Any] = {"autoreset": AUTORESET[self._mode]} if batch else {}
        self._transforms = compiled(
            {
                "step": partial(time_aware, feature=feature, **mode),
                "reset": partial(time_aware_reset, feature=feature),
                "show": partial(show_time, feature=feature),
            }
        )


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

    @property
    def timesteps(self) -> int:
        """Steps taken in the current episode (read on the host)."""
        return int(xp.to_numpy(self._state.elapsed))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._run(self._transforms["reset"], obs, checked(self._check, obs)), info

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        out, _ = self._run(self._transforms["step"], obs, checked(self._check, obs))
        return out, reward, terminated, truncated, info

    def observation(self, observation: Any) -> Any:
        return self._run(self._transforms["show"], observation, checked(self._check, observation))
