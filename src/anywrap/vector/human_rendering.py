"""HumanRendering for vector envs."""

import gymnasium as gym

from anywrap.shell.checks import checked_reset
from anywrap.wrappers.common import HostView


class HumanRendering(gym.wrappers.vector.HumanRendering):
    """:class:`gymnasium.wrappers.vector.HumanRendering`, taking the frames of any library
    (each shown frame is copied to the host once).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, render_mode="rgb_array")
        >>> anywrap.vector.HumanRendering(envs).render_mode
        'human'
    """

    reset = checked_reset(gym.wrappers.vector.HumanRendering.reset)

    def _render_frame(self) -> None:
        with HostView(self):
            super()._render_frame()
