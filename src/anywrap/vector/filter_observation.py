"""FilterObservation for vector envs."""

from anywrap.shell.maps import VectorObservationMap
from anywrap.wrappers import transform_observation as single


class FilterObservation(VectorObservationMap):
    """:class:`anywrap.FilterObservation` for a vector env (``info["final_obs"]`` filtered
    too): the env's own batches, where Gymnasium's copies them into NumPy.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> envs = gym.make_vec("CartPole-v1", 2, vectorization_mode="sync", wrappers=[
        ...     lambda e: gym.wrappers.TimeAwareObservation(e, flatten=False)])
        >>> anywrap.vector.FilterObservation(envs, filter_keys=["time"]).reset(seed=42)[0]
        {'time': array([[0],
               [0]], dtype=int32)}
    """

    __init__ = single.FilterObservation.__init__
