"""FilterObservation for vector envs."""

from collections.abc import Sequence

from gymnasium.vector import VectorEnv

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers.filter_observation import filter_map


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
        name, _ = self._start(env, filter_keys=filter_keys)
        space, fn, check = filter_map(name, env.single_observation_space, filter_keys)
        self._wrap(env, space)
        self.filter_keys = filter_keys
        self._set_map(name, fn, check)
        # A selection: nothing to compile (and jit would sort a dict's keys).
        self._map, self._both, self._check_entry = fn, lambda o, f: (fn(o), fn(f)), check
