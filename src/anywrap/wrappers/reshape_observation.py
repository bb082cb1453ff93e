"""ReshapeObservation for a single env."""

from functools import partial

import gymnasium as gym

from anywrap.shell.arrays import box_check, reshape_space
from anywrap.shell.maps import ObservationMap
from anywrap.transforms.reshape_observation import reshape_observation


class ReshapeObservation(ObservationMap):
    """Reshapes every Box observation to ``shape``, in the observation's library (a view
    where the library allows one): :class:`gymnasium.wrappers.ReshapeObservation`.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> anywrap.ReshapeObservation(gym.make("CartPole-v1"), (2, 2)).reset(seed=0)[0].shape
        (2, 2)

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: gym.Env, shape: tuple[int, ...]) -> None:
        """Wrap ``env`` (a Box observation space); ``shape``: a tuple of ints (one may be -1)."""
        name, _ = self._start(env, shape=shape)
        space = reshape_space(name, env.observation_space, shape)
        self._wrap(env, space)
        self.shape = shape
        fn = partial(reshape_observation, shape=space.shape)
        self._set_map(name, fn, box_check(name, env.observation_space))
