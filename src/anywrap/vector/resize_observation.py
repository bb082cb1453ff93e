"""ResizeObservation for vector envs."""

from gymnasium.vector import VectorEnv

from anywrap.shell.checks import autoreset_mode
from anywrap.shell.images import frames_check, resize_map
from anywrap.shell.maps import VectorObservationMap


class ResizeObservation(VectorObservationMap):
    """:class:`anywrap.ResizeObservation` for a vector env: the whole batch in one call, in
    every autoreset mode.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.ResizeObservation(envs, (84, 84)).reset(seed=0)[0].shape
        (2, 84, 84, 3)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(
        self, env: VectorEnv, shape: tuple[int, int], *, interpolation: str = "area"
    ) -> None:
        name, batch = self._start(env, shape=shape, interpolation=interpolation)
        image = resize_map(name, env.single_observation_space, shape, interpolation)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        autoreset_mode(name, env)
        self._check_entry = frames_check(name, image.in_shape, "final observations")
        self.shape, self.interpolation = image.space.shape[:2], interpolation
