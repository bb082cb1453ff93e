"""Stateful action vector wrappers: StickyAction."""

from typing import Any

import numpy as np
from gymnasium.vector import VectorWrapper

from anywrap.shell.sticky_action import checked_action
from anywrap.wrappers.stateful_action import StickyShell


class StickyAction(StickyShell, VectorWrapper):
    """:class:`anywrap.StickyAction` for a vector env (Gymnasium has none): a sub-env forgets
    its last action when its episode restarts; a list of seeds is hashed into one.

    Example:
        >>> import numpy as np, gymnasium as gym, anywrap
        >>> envs = anywrap.vector.StickyAction(gym.make_vec("CartPole-v1", 4), 0.25)
        >>> _ = envs.reset(seed=0)
        >>> envs.actions(np.ones(4, dtype=np.int64)).shape
        (4,)
    """

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
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
        gen = self._stream.generator(self._state)
        actions = checked_action(
            "anywrap.vector.StickyAction", self.action_space, actions, self._state.machine.last
        )
        return self._run(self._transforms["step"], actions, gen, actions)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        with self._undone_on_failure():  # refused by the env: not the last actions
            obs, reward, terminated, truncated, info = self.env.step(self.actions(actions))
        machine = self._state.machine._replace(prev_terminated=terminated, prev_truncated=truncated)
        self._state = self._state._replace(machine=machine)
        return obs, reward, terminated, truncated, info
