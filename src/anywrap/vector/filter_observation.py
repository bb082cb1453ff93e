"""FilterObservation for vector envs."""

from collections.abc import Sequence
from functools import partial

import gymnasium as gym
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

from anywrap.shell.checks import check_env_kind
from anywrap.shell.maps import VectorObservationMap
from anywrap.transforms.filter_observation import filter_observation
from anywrap.wrappers.filter_observation import gymnasium_spaces, observation_check

__all__ = ["FilterObservation"]


class FilterObservation(VectorObservationMap):
    """:class:`anywrap.FilterObservation` for a vector env (``info["final_obs"]`` filtered
    too): the env's own batches, where Gymnasium's copies them into NumPy.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync", wrappers=[
        ...     lambda e: gym.wrappers.TimeAwareObservation(e, flatten=False)])
        >>> envs = anywrap.vector.FilterObservation(envs, filter_keys=["time"])
        >>> envs.reset(seed=42)[0]
        {'time': array([[0],
               [0]], dtype=int32)}

    Change logs: v0.1.0 - initially added.
    """

    def __init__(self, env: VectorEnv, filter_keys: Sequence[str | int]) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, filter_keys=filter_keys)
        check_env_kind(self, env)
        owner = "anywrap.vector.FilterObservation"
        ref = gymnasium_spaces(
            owner,
            partial(gym.wrappers.FilterObservation, filter_keys=filter_keys),
            env.single_observation_space,
        )
        VectorWrapper.__init__(self, env)
        self.single_observation_space = ref.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.filter_keys = filter_keys
        keys = tuple(filter_keys)
        check = observation_check(owner, keys)
        fn = partial(filter_observation, keys=keys)
        self._set_map(owner, fn, check)
        # A selection: nothing to compile (and jit would sort a dict's keys).
        self._map, self._both, self._check_entry = fn, lambda o, f: (fn(o), fn(f)), check
