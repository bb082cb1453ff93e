"""DictInfoToList for vector envs."""

from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper

from anywrap import xp
from anywrap.shell.base import Shell
from anywrap.shell.checks import check_env_kind, wrapper_name


class DictInfoToList(Shell, VectorWrapper):
    """:class:`gymnasium.wrappers.vector.DictInfoToList`, the values kept in their library
    and on their device (``value[i]``); the masks are read on the host.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.vector.DictInfoToList(gym.make_vec("CartPole-v1", num_envs=2)).reset(seed=0)[1]
        [{}, {}]
    """

    def __init__(self, env: VectorEnv) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        if not isinstance(env, VectorEnv):  # it reads num_envs alone, at each step
            check_env_kind(self, env)
        VectorWrapper.__init__(self, env)

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, list[dict[str, Any]]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._to_list(info)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, list[dict[str, Any]]]:  # type: ignore[override]
        obs, reward, terminated, truncated, info = self.env.step(actions)
        return obs, reward, terminated, truncated, self._to_list(info)

    def _rows(self, key: str, value: Any) -> list[Any]:
        if isinstance(value, dict):
            return self._to_list(value)
        if getattr(value, "shape", (None,))[:1] != (self.num_envs,):
            raise ValueError(
                f"{wrapper_name(self)}: expected info[{key!r}] to be an array with one row per "
                f"sub-env ({self.num_envs}), got {xp.describe(value)}"
            )
        return [value[i] for i in range(self.num_envs)]

    def _to_list(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(info, dict):
            raise TypeError(f"{wrapper_name(self)}: expected an info dict, got {info!r}")
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, value in info.items():
            if key.startswith("_"):
                continue
            rows = self._rows(key, value)
            mask = info.get(f"_{key}")
            kept = [True] * self.num_envs if mask is None else xp.to_numpy(mask).tolist()
            if len(kept) != self.num_envs:
                raise ValueError(
                    f"{wrapper_name(self)}: expected info['_{key}'] to hold one bool per "
                    f"sub-env ({self.num_envs}), got {xp.describe(mask)}"
                )
            for row, has, one in zip(out, kept, rows):
                if has:
                    row[key] = one
        return out
