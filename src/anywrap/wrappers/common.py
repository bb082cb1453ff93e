"""Gymnasium's wrappers with no array arithmetic, for one env (device arrays read on the host)."""

import functools
from typing import Any

import gymnasium as gym

from anywrap import xp
from anywrap.shell.checks import checked_reset
from anywrap.tree import tree_map


def host_copy(tree: Any) -> Any:
    """``tree`` with every device array copied to NumPy (a 0-d one as a NumPy scalar)."""

    def one(x: Any) -> Any:
        if xp.is_host(x) or not hasattr(x, "shape"):
            return x
        host = xp.to_numpy(x)
        return host[()] if host.ndim == 0 else host

    return tree_map(one, tree)


class HostView:
    """For a ``with`` block, ``wrapper.env`` with its outputs copied to the host (the
    originals kept in ``result``), as Gymnasium's checks and screens read them."""

    def __init__(self, wrapper: Any) -> None:
        self._wrapper, self._env, self.result = wrapper, wrapper.env, None  # type: Any, Any, Any
        # The checker reads reset's signature (does it take seed and options?): the env's.
        self.reset = functools.wraps(self._env.reset)(lambda **kwargs: self._reset(**kwargs))

    def __enter__(self) -> "HostView":
        self._wrapper.env = self
        return self

    def __exit__(self, *exc: Any) -> None:
        self._wrapper.env = self._env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def _reset(self, **kwargs: Any) -> Any:
        self.result = out = self._env.reset(**kwargs)
        if isinstance(out, tuple) and len(out) == 2:  # else the checker says what is wrong
            return host_copy(out[0]), out[1]
        return out

    def step(self, action: Any) -> Any:
        self.result = out = self._env.step(action)
        if isinstance(out, tuple) and len(out) == 5:
            return (*host_copy(out[:4]), out[4])
        return out

    def render(self) -> Any:
        return host_copy(self._env.render())


class OrderEnforcing(gym.wrappers.OrderEnforcing):
    """Raises :class:`gymnasium.error.ResetNeeded` if ``step`` or ``render`` comes before
    ``reset``: :class:`gymnasium.wrappers.OrderEnforcing`, which touches no array.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.OrderEnforcing(gym.make("CartPole-v1", disable_env_checker=True))
        >>> env.step(0)
        Traceback (most recent call last):
        ...
        gymnasium.error.ResetNeeded: Cannot call env.step() before calling env.reset()
    """

    reset = checked_reset(gym.wrappers.OrderEnforcing.reset)


class Autoreset(gym.wrappers.Autoreset):
    """Resets the env on the step after an episode ends: :class:`gymnasium.wrappers.Autoreset`
    (it reads a device env's flags on the host, as every loop over one env does).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.Autoreset(gym.make("CartPole-v1", max_episode_steps=2))
        >>> _ = env.reset(seed=0)
        >>> [env.step(0)[3] for _ in range(3)]  # truncated, then the reset step
        [False, True, False]
    """

    reset = checked_reset(gym.wrappers.Autoreset.reset)


class RenderCollection(gym.wrappers.RenderCollection):
    """Collects the rendered frames in a list: :class:`gymnasium.wrappers.RenderCollection`.
    Frames stay what the env renders (a tensor frame stays a tensor on its device).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.RenderCollection(gym.make("CartPole-v1", render_mode="rgb_array"))
        >>> _ = env.reset(seed=0)
        >>> [frame.shape for frame in env.render()]
        [(400, 600, 3)]
    """

    reset = checked_reset(gym.wrappers.RenderCollection.reset)


class PassiveEnvChecker(gym.wrappers.PassiveEnvChecker):
    """:class:`gymnasium.wrappers.PassiveEnvChecker`, but a device env's first outputs are
    checked as NumPy copies; the wrapper returns the env's own arrays.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.PassiveEnvChecker(gym.make("CartPole-v1", disable_env_checker=True))
        >>> env.reset(seed=0)[0].shape, env.checked_reset
        ((4,), True)
    """

    @checked_reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if self.checked_reset:
            return self.env.reset(seed=seed, options=options)
        with HostView(self) as view:
            super().reset(seed=seed, options=options)
        self._previous_data = view.result
        return view.result

    def step(self, action: Any) -> Any:
        if self.checked_step:
            return super().step(action)
        with HostView(self) as view:
            super().step(action)
        self._previous_data = (view.result[0], view.result[4])
        return view.result


class HumanRendering(gym.wrappers.HumanRendering):
    """Shows the env's frames in a window: :class:`gymnasium.wrappers.HumanRendering`,
    taking the frames of any library (each shown frame is copied to the host once).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.HumanRendering(gym.make("CartPole-v1", render_mode="rgb_array")).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.HumanRendering.reset)

    def _render_frame(self) -> None:
        with HostView(self):
            super()._render_frame()
