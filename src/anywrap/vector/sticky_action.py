"""StickyAction for vector envs (Gymnasium has none)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import VectorWrapper

from anywrap.shell.sticky_action import checked_action
from anywrap.wrappers.sticky_action import StickyShell

__all__ = ["StickyAction"]

_NAME = "anywrap.vector.StickyAction"


class StickyAction(StickyShell, VectorWrapper):
    """Each sub-env, with probability ``repeat_action_probability``, gets its previous action
    again for a run of ``repeat_action_duration`` steps; drawn on the env's device.

    The state machine of :class:`anywrap.StickyAction` for every sub-env at
    once (one compiled call on JAX, with the draw). A sub-env forgets its last
    action when its episode restarts: at ``reset`` (only the masked sub-envs
    for ``options={"reset_mask": m}``), on a NEXT_STEP reset step and after a
    SAME_STEP end. ``reset(seed=s)`` restarts the wrapper's stream from ``s``
    (a list of seeds is hashed into one).

    Example:
        >>> import numpy as np
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=4, vectorization_mode="sync")
        >>> envs = anywrap.vector.StickyAction(envs, repeat_action_probability=0.25)
        >>> _ = envs.reset(seed=0)
        >>> _ = envs.step(np.zeros(4, dtype=np.int64))
        >>> sent = envs.actions(np.ones(4, dtype=np.int64))  # the batch the env would get
        >>> sent.shape, set(sent.tolist()) <= {0, 1}
        ((4,), True)

    Change logs:
     * v0.1.0 - Initially added.
    """

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset; forget the last actions of the sub-envs reset (all, without a mask)."""
        stream_seed: int | None = None
        if isinstance(seed, list | tuple):  # one stream: from the sub-envs' seeds given
            given = [int(s) for s in seed if s is not None]  # before the env is reset
            stream_seed = int(np.random.SeedSequence(given).generate_state(1)[0]) if given else None
        elif seed is not None:
            stream_seed = int(seed)
        obs, info, mask = self._masked_reset(seed, options)
        self._run(self._transforms["reset"], obs, mask)
        self._stream.reseed(self, stream_seed)
        return obs, info

    def actions(self, actions: Any) -> Any:
        """The batch the env gets: each sub-env's action, or its previous one again."""
        gen = self._stream.generator(self._state)
        actions = checked_action(_NAME, self.action_space, actions, self._state.machine.last)
        return self._run(self._transforms["step"], actions, gen, actions)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step with the sticky actions; remember the flags for the next step's restarts."""
        with self._undone_on_failure():  # refused by the env: not the last actions
            obs, reward, terminated, truncated, info = self.env.step(self.actions(actions))
        machine = self._state.machine._replace(prev_terminated=terminated, prev_truncated=truncated)
        self._state = self._state._replace(machine=machine)
        return obs, reward, terminated, truncated, info
