"""GrayscaleObservation for vector envs."""

from gymnasium.vector import VectorEnv

from anywrap.shell.checks import autoreset_mode
from anywrap.shell.images import frames_check, grayscale_map
from anywrap.shell.maps import VectorObservationMap


class GrayscaleObservation(VectorObservationMap):
    """:class:`anywrap.GrayscaleObservation` for a vector env, in one batched call; in
    SAME_STEP mode (which Gymnasium's refuses) ``info["final_obs"]`` is converted too.

    Example:
        >>> import ale_py, gymnasium as gym, anywrap
        >>> gym.register_envs(ale_py)
        >>> envs = gym.make_vec("ALE/Pong-v5", 2, vectorization_mode="sync")
        >>> anywrap.vector.GrayscaleObservation(envs).reset(seed=0)[0].shape
        (2, 210, 160)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, keep_dim: bool = False) -> None:
        name, batch = self._start(env, keep_dim=keep_dim)
        image = grayscale_map(name, env.single_observation_space, keep_dim)
        self._wrap(env, image.space)
        self._set_map(name, image.fn, frames_check(name, (*batch, *image.in_shape)))
        autoreset_mode(name, env)
        self._check_entry = frames_check(name, image.in_shape, "final observations")
        self.keep_dim = keep_dim
