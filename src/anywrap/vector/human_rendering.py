"""HumanRendering for vector envs."""

from __future__ import annotations

import gymnasium as gym

from anywrap.shell.checks import checked_reset
from anywrap.wrappers.common import host_view

__all__ = ["HumanRendering"]


class HumanRendering(gym.wrappers.vector.HumanRendering):
    """Shows the sub-envs' frames tiled in one window:
    :class:`gymnasium.wrappers.vector.HumanRendering`.

    Unlike Gymnasium's, which asserts NumPy frames, it takes the frames of any
    library (a torch or JAX vector env that renders on its device): each shown
    frame is copied to the host once, which a screen needs anyway.

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, render_mode="rgb_array")
        >>> anywrap.vector.HumanRendering(envs).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.vector.HumanRendering.reset)

    def _render_frame(self) -> None:
        with host_view(self):
            super()._render_frame()
