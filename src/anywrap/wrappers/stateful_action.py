"""Stateful action wrappers for one env: StickyAction, RepeatAction."""

from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import (
    autoreset_mode,
    check_env_kind,
    checked_reset,
    step_values,
    wrapper_name,
    wrong_type,
)
from anywrap.shell.compiled import compiled, with_no_output
from anywrap.shell.sticky_action import (
    SavedStream,
    StickyStream,
    check_sticky,
    checked_action,
    init_keyed,
)
from anywrap.shell.time import AUTORESET
from anywrap.transforms.sticky_action import reset_keyed, sticky_step
from anywrap.wrappers.common import reset_env, state_field
from anywrap.xp import random


class StickyShell(SavedStream, Shell):
    """What the single and vector StickyAction share: the constructor and reset."""

    def __init__(
        self,
        env: Any,
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ) -> None:
        """Wrap ``env``; ``repeat_action_probability`` in [0, 1), ``repeat_action_duration`` an
        int or an inclusive ``(low, high)`` range of run lengths."""
        name, batch = self._start(
            env,
            repeat_action_probability=repeat_action_probability,
            repeat_action_duration=repeat_action_duration,
        )
        params = check_sticky(name, repeat_action_probability, repeat_action_duration)
        self._wrap(env)
        self.repeat_action_probability = repeat_action_probability
        self.repeat_action_duration_range = (params.low, params.high)
        self._stream = StickyStream(name)
        space = self._single_space(env, "action")
        self._state = init_keyed(name, space, batch)
        self._ranges = {"length": (0, params.high), "taken": (0, params.high)}  # loaded states
        if isinstance(space, gym.spaces.Discrete):  # the last action: one the env could take
            self._ranges["last"] = (int(space.start), int(space.start + space.n - 1))
        mode: dict[str, Any] = {"autoreset": AUTORESET[autoreset_mode(name, env)]} if batch else {}
        step = partial(sticky_step, params=params, **mode)
        self._transforms = compiled({"step": step, "reset": with_no_output(reset_keyed)})

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        seeds = seed if isinstance(seed, list | tuple) else [seed]
        if not all(s is None or isinstance(s, int | np.integer) for s in seeds):
            raise wrong_type(wrapper_name(self), "seed", "an int, a list of ints or None", seed)
        given = [int(s) for s in seeds if s is not None]  # read before the env is reset
        if given and isinstance(seed, list | tuple):  # one stream from the sub-envs' seeds
            given = [int(np.random.SeedSequence(given).generate_state(1)[0])]
        stream_seed = given[0] if given else None
        obs, info, mask = reset_env(self, seed, options)
        self._run(self._transforms["reset"], obs, mask)
        self._stream.reseed(self, stream_seed)
        return obs, info

    def checked_state(self, state_dict: dict[str, Any]) -> Any:
        """The state :meth:`load_state_dict` would install; its key must make a generator."""
        state = super().checked_state(state_dict)
        try:
            random.key_from_data(random.new_key(state.machine.has_last, 0), state.key)
        except TypeError:  # a library whose key is its own data (JAX): nothing to build
            pass
        except (ValueError, RuntimeError) as e:
            who = f"{wrapper_name(self)}.load_state_dict"
            raise ValueError(f"{who}: 'key' holds no generator's state: {e}") from None
        return state


class StickyAction(StickyShell, gym.ActionWrapper):
    """With probability ``repeat_action_probability`` the env gets the previous action again,
    for a run of ``repeat_action_duration`` steps: :class:`gymnasium.wrappers.StickyAction`,
    drawn on the env's device from its library's generator, which ``reset(seed=s)`` seeds
    (Gymnasium's distribution, other draws).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.StickyAction(gym.make("CartPole-v1"), repeat_action_probability=0.9)
        >>> _ = env.reset(seed=0)
        >>> int(env.action(0))
        0
    """

    # Gymnasium's attributes, read from the state (reading copies to the host: not per step).
    @property
    def last_action(self) -> Any:
        """The last action sent to the env (``None`` before the first of the episode)."""
        m = self._state.machine
        return m.last if bool(xp.to_numpy(m.has_last)) else None

    is_sticky_actions = state_field("machine.sticky", "Whether a run of repeats is going on.", bool)
    num_repeats = state_field("machine.length", "The running series' length (0 when none).", int)
    repeats_taken = state_field("machine.taken", "Repeats taken in the running series.", int)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        with self._undone_on_failure():
            return self.env.step(self.action(action))

    def action(self, action: Any) -> Any:
        gen = self._stream.generator(self._state)
        action = checked_action(
            "anywrap.StickyAction", self.env.action_space, action, self._state.machine.last
        )
        out = self._run(self._transforms["step"], action, gen, action)
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out


_NAME = "anywrap.RepeatAction"


def check_repeats(owner: str, num_repeats: Any) -> int:
    """Gymnasium's checks of ``num_repeats``: an integer of at least 1."""
    if not np.issubdtype(type(num_repeats), np.integer):
        raise TypeError(
            f"{owner}: `num_repeats` is expected to be an integer, actual type: {type(num_repeats)}"
        )
    if num_repeats < 1:
        raise ValueError(
            f"{owner}: `num_repeats` needs to be equal or greater than one, "
            f"actual value: {num_repeats}"
        )
    return int(num_repeats)


class RepeatAction(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Steps the env ``num_repeats`` times with each action (until an episode ends), summing
    the rewards on their device: :class:`gymnasium.wrappers.RepeatAction`; the flags are
    read on the host (:class:`anywrap.functional.RepeatAction` reads none).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RepeatAction(gym.make("CartPole-v1"), num_repeats=4)
        >>> _ = env.reset(seed=123)
        >>> env.step(1)[1]  # the sum of 4 rewards
        4.0
    """

    def __init__(self, env: gym.Env, num_repeats: int) -> None:
        """Wrap ``env``; ``num_repeats`` (>= 1) steps per action."""
        check_repeats(_NAME, num_repeats)
        gym.utils.RecordConstructorArgs.__init__(self, num_repeats=num_repeats)
        check_env_kind(self, env)
        gym.Wrapper.__init__(self, env)
        self.num_repeats = num_repeats

    reset = checked_reset(gym.Wrapper.reset)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        total: Any = 0.0
        for _ in range(self.num_repeats):
            obs, reward, terminated, truncated, info = self.env.step(action)
            reward = step_values(_NAME, reward, terminated, truncated, None)
            total = total + (float(reward) if xp.is_host(reward) else reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info
