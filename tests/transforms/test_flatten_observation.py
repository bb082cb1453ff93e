"""anywrap.transforms.flatten_observation on every library: gymnasium.spaces.utils.flatten's
values and dtypes, for one observation and for a batch."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from anywrap.transforms.flatten_observation import flatten_observation, flatten_plan
from anywrap.tree import tree_map

SPACE = gym.spaces.Dict(
    {
        "box": gym.spaces.Box(-1.0, 1.0, (2, 2)),
        "id": gym.spaces.Discrete(4, start=2),
        "many": gym.spaces.MultiDiscrete([3, 2]),
        "bits": gym.spaces.MultiBinary(3),
    }
)


def test_the_values_are_gymnasiums(backend):
    SPACE.seed(0)
    samples = [SPACE.sample() for _ in range(3)]
    plan = flatten_plan(SPACE)
    for s in samples:
        want = gym.spaces.utils.flatten(SPACE, s)
        got = backend.to_numpy(flatten_observation(tree_map(backend.to_backend, s), plan))
        assert got.dtype.name == want.dtype.name.replace(
            "64", "32" if backend.float_dtype == "float32" else "64"
        )
        np.testing.assert_array_equal(got, want)
    batch = {k: np.stack([s[k] for s in samples]) for k in SPACE.spaces}
    flat = flatten_observation(tree_map(backend.to_backend, batch), plan, batch_ndim=1)
    want = np.stack([gym.spaces.utils.flatten(SPACE, s) for s in samples])
    np.testing.assert_array_equal(backend.to_numpy(flat), want)
