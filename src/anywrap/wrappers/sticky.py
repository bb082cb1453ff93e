"""StickyAction for a single env."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium.error import InvalidBound, InvalidProbability

from anywrap import xp as axp
from anywrap.shell.base import Shell
from anywrap.shell.checks import wrapper_name
from anywrap.transforms.sticky import (
    StickyParams,
    StickyState,
    init_sticky,
    reset_sticky,
    sticky_step,
)
from anywrap.tree import first_leaf, tree_map
from anywrap.xp import random

__all__ = ["StickyAction", "StickyKeyed", "StickyShell", "check_sticky", "sample_action"]


def check_sticky(owner: str, probability: Any, duration: Any) -> StickyParams:
    """Gymnasium's checks on the arguments; the state machine's parameters."""
    if not (isinstance(probability, int | float) and 0 <= probability < 1):
        raise InvalidProbability(
            f"{owner}: `repeat_action_probability` should be in [0, 1), got {probability!r}"
        )
    bounds = (duration, duration) if isinstance(duration, int) else duration
    if not isinstance(bounds, tuple):
        raise ValueError(
            f"{owner}: `repeat_action_duration` should be an int or a tuple, got {duration!r}"
        )
    if len(bounds) != 2:
        raise ValueError(
            f"{owner}: `repeat_action_duration` should be a tuple of two ints, got {duration!r}"
        )
    if bounds[0] > bounds[1]:
        raise InvalidBound(f"{owner}: `repeat_action_duration` is not a valid range: {duration!r}")
    if bounds[0] < 1:
        raise ValueError(f"{owner}: `repeat_action_duration` should be >= 1, got {duration!r}")
    return StickyParams(float(probability), int(bounds[0]), int(bounds[1]))


def sample_action(owner: str, space: gym.Space, batch: tuple[int, ...]) -> Any:
    """A NumPy action (tree) of ``space``'s shapes and dtypes, with a batch of ``batch``."""
    if isinstance(space, gym.spaces.Dict):
        return {k: sample_action(owner, s, batch) for k, s in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(sample_action(owner, s, batch) for s in space.spaces)
    if space.shape is None or space.dtype is None:
        raise TypeError(f"{owner}: expected an action space of arrays, got {space}")
    return np.zeros((*batch, *space.shape), dtype=space.dtype)


class StickyKeyed(NamedTuple):
    """A sticky-action shell's state: the state machine and its generator's state."""

    machine: StickyState
    key: Any
    """JAX: the key itself. A stateful generator (NumPy's, torch's): a snapshot of its
    state, taken when the state is read (``state_dict``, a checkpoint)."""


class StickyShell(Shell):
    """What the single and vector ``StickyAction`` share: the arguments' checks and
    record (:meth:`_setup`), the generator, how ``reset(seed=...)`` seeds it, the
    action checks, and the draw.

    ``reset(seed=s)`` starts the stream ``derive_seed(s, "StickyAction")``
    (:mod:`anywrap.xp.random`): reproducible from ``s`` alone, and apart from
    the env's own stream, which Gymnasium's wrapper draws from (so the two
    differ in draws, not in distribution). ``reset()`` without a seed
    continues the stream; before any seed it starts from operating-system
    entropy. The generator's state is part of the wrapper's state, so
    ``state_dict`` and checkpoints restore it.
    """

    env: Any
    _state: StickyKeyed
    _step: Any
    _live: Any = None
    """The generator drawn from: a stateful generator, or a JAX key."""
    _live_for: Any = None
    """The ``key`` entry of the state that ``_live`` belongs to."""
    _home: tuple[str, str] | None = None

    def _setup(
        self, space: gym.Space, batch: tuple[int, ...], probability: Any, duration: Any
    ) -> StickyParams:
        """Check and record the arguments, and start the state machine for actions of
        ``space`` with the batch shape ``batch``; the machine's parameters."""
        name = wrapper_name(self)
        params = check_sticky(name, probability, duration)
        sample = sample_action(name, space, batch)
        self.repeat_action_probability = probability
        self.repeat_action_duration_range = (params.low, params.high)
        machine = init_sticky(sample, batch_shape=batch, xp=np)
        entropy = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        placeholder = random.key_data(random.new_key(np.zeros(()), entropy))
        self._state = StickyKeyed(machine, placeholder)
        self._reset = axp.Compiled(reset_sticky, 0)
        return params

    def _reseed(self, seed: int | None) -> None:
        """Restart from ``seed``, or continue; the generator lives with the state."""
        like = first_leaf(self._state.machine.has_last)
        home = (axp.library_name(like), str(axp.device(like)))
        if seed is None and home == self._home:
            return
        if seed is None:  # first use, or the env moved to another library or device
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self._live = random.new_key(like, random.derive_seed(seed, "StickyAction"))
        data = self._snapshot(self._live)
        self._state = self._state._replace(key=data)
        self._live_for, self._home = data, home

    def _generator(self) -> Any:
        """The generator to draw from (rebuilt from the state's key after a load)."""
        key = self._state.key
        if self._live is None or self._live_for is not key:
            like = first_leaf(self._state.machine.has_last)
            self._live = random.key_from_data(random.new_key(like, 0), key)
            self._live_for = key
        return self._live

    def _draw_step(self, action: Any) -> Any:
        """One compiled step of the state machine, drawing from the generator."""
        if self._home is None:
            raise gym.error.ResetNeeded(f"{wrapper_name(self)}: call reset() before step()")
        action = self._check(action)
        gen = self._generator()
        machine, new, out = self._step(self._state.machine, gen, action)
        if new is gen:  # a stateful generator advanced in place
            self._state = StickyKeyed(machine, self._state.key)
        else:  # a JAX key: the new one is the state
            self._state = StickyKeyed(machine, new)
            self._live = self._live_for = new
        return out

    def _snapshot(self, key: Any) -> Any:
        """The generator's state as an array of the state's library and device."""
        return convert_leaf(random.key_data(key), self._xp, self._device)

    def _export(self, state: Any) -> Any:
        # A stateful generator moved on since its snapshot: take a fresh one.
        if self._live is not None and state.key is self._live_for and self._live is not state.key:
            return state._replace(key=self._snapshot(self._live))
        return state

    def _state_for(self, like: Any) -> Any:
        if type(first_leaf(like)) is not self._data_type:  # a move: keep the generator's state
            self._state = self._export(self._state)
        return super()._state_for(like)

    def _check(self, action: Any) -> Any:
        """The action as a tree of the state's library, or a clear error."""
        name = wrapper_name(self)

        def leaf(a: Any, ref: Any) -> Any:
            if isinstance(a, int | float | bool | list | tuple | np.generic):
                a = np.asarray(a, dtype=ref.dtype if isinstance(a, list | tuple) else None)
            host = axp.is_host(a)
            if not host and type(a) is not self._data_type:
                raise TypeError(
                    f"{name}: expected an action of the env's library ({axp.describe(ref)}), "
                    f"got {axp.describe(a)}"
                )
            if tuple(getattr(a, "shape", ())) != tuple(ref.shape):
                raise ValueError(
                    f"{name}: expected an action of shape {tuple(ref.shape)} (action space "
                    f"{self.env.action_space}), got {axp.describe(a)}"
                )
            if host and self._xp is not np:
                return convert_tree(a, self._xp, self._device)
            return a

        try:
            return tree_map(leaf, action, self._state.machine.last)
        except (KeyError, IndexError) as e:
            raise ValueError(f"{name}: the action does not fit {self.env.action_space}") from e


class StickyAction(StickyShell, gym.ActionWrapper, Shell):
    """With probability ``repeat_action_probability`` the env gets the previous action again,
    for a run of ``repeat_action_duration`` steps, drawn from the env library's own generator.

    Drop-in for :class:`gymnasium.wrappers.StickyAction` (Machado et al.,
    2018): same arguments, errors and state machine
    (:mod:`anywrap.transforms.sticky`). The choices are drawn from the
    generator of the env's array library, on its device (NumPy's PCG64, a JAX
    key, a ``torch.Generator``), so that a JAX or CUDA env never waits for the
    host; on JAX the draw and the choice are one compiled call.

    Seeding differs from Gymnasium's, which draws from the env's
    ``np_random``: here ``reset(seed=s)`` restarts the wrapper's own stream
    from ``s`` (see :class:`StickyShell`), so the same seed gives the same
    choices on every run, and the wrapper never moves the env's stream. The
    distribution of the choices is Gymnasium's; the draws are not. A repeated
    action takes the dtype of the action it replaces (so a compiled step sees
    one dtype).
    ``state_dict()`` holds the state machine and the generator's state.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> env = anywrap.StickyAction(gym.make("CartPole-v1"), repeat_action_probability=0.9)
        >>> _ = env.reset(seed=0)
        >>> sent = [int(env.action(a)) for a in [0, 1, 1, 1, 1, 1]]
        >>> sent[0], len(sent)
        (0, 6)

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    def __init__(
        self,
        env: gym.Env,
        repeat_action_probability: float,
        repeat_action_duration: int | tuple[int, int] = 1,
    ) -> None:
        """Wrap ``env``; ``repeat_action_probability`` in [0, 1), ``repeat_action_duration`` an
        int or an inclusive ``(low, high)`` range of run lengths."""
        params = self._setup(
            env.action_space, (), repeat_action_probability, repeat_action_duration
        )
        gym.ActionWrapper.__init__(self, env)
        self._step = axp.Compiled(partial(sticky_step, params=params), 0)

    # Gymnasium's attributes, read from the state (reading copies to the host: not per step).
    @property
    def last_action(self) -> Any:
        """The last action sent to the env (``None`` before the first of the episode)."""
        m = self._state.machine
        return m.last if bool(axp.to_numpy(m.has_last)) else None

    @property
    def is_sticky_actions(self) -> bool:
        """Whether a run of repeats is going on."""
        return bool(axp.to_numpy(self._state.machine.sticky))

    @property
    def num_repeats(self) -> int:
        """The running series' length (0 when none)."""
        return int(axp.to_numpy(self._state.machine.length))

    @property
    def repeats_taken(self) -> int:
        """Repeats taken in the running series."""
        return int(axp.to_numpy(self._state.machine.taken))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Reset the env and forget the last action; ``seed`` restarts the wrapper's generator."""
        obs, info = self.env.reset(seed=seed, options=options)
        state = self._state_for(obs)
        self._commit(state._replace(machine=self._reset(state.machine)), obs)
        self._reseed(seed)
        return obs, info

    def action(self, action: Any) -> Any:
        """The action the env gets: ``action``, or the previous one again."""
        out = self._draw_step(action)
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out
