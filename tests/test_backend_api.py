"""The backend registry's public API: a library defined here, in the tests, plugs in
everything (namespace, device, float64 policy, conversions, compiler, routed
ops) through ``anywrap.xp.register_backend`` alone, as an outside package would.
TensorFlow reaches the registry the same way, from an entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from helpers import ReplayVectorEnv, make_backend, record_vector_trajectory, run_vector
from test_registry import TOY, ToyArray

import anywrap
from anywrap import xp as axp
from anywrap.xp import registry

SRC = os.path.join(os.path.dirname(os.path.dirname(__file__)), "src")


class Calls:
    """What the toy backend's hooks were asked to do."""

    def __init__(self) -> None:
        self.jit: list[Callable[..., Any]] = []
        self.sum_along = 0
        self.imports = 0
        self.exports = 0
        self.on_host: list[Any] = []


@pytest.fixture
def toy() -> Iterator[tuple[axp.Backend, Calls]]:
    calls = Calls()

    def jit(fn: Callable[..., Any]) -> Callable[..., Any]:
        calls.jit.append(fn)
        return fn

    def to_numpy(x: ToyArray) -> np.ndarray:
        calls.exports += 1
        return np.asarray(x._a)

    def from_array(x: Any, device: Any) -> ToyArray:
        calls.imports += 1
        if device not in (None, "cpu"):
            raise ValueError(f"toy arrays live on the cpu, not {device!r}")
        return x if isinstance(x, ToyArray) else ToyArray(np.array(axp.to_numpy(x)))

    def on_host(x: ToyArray) -> bool:
        calls.on_host.append(x)
        return x._a.ndim > 0  # the toy's 0-d arrays play a device's

    backend = axp.register_backend(
        axp.Backend(
            "toy",
            (ToyArray,),
            namespace=lambda x: TOY,
            device=lambda x: "cpu",
            to_numpy=to_numpy,
            from_array=from_array,
            jit=jit,
            has_float64=lambda device: False,  # like JAX without x64
            on_host=on_host,
            aliases=("toyarray",),
        )
    )

    @backend.route(axp.sum_along)
    def _sum_along(x: ToyArray, axis: int | None = None) -> ToyArray:
        calls.sum_along += 1
        return ToyArray(np.sum(x._a, axis=axis))

    yield backend, calls
    registry._by_type.pop(ToyArray, None)
    for name in ("toy", "toyarray"):
        registry._by_name.pop(name, None)
    registry._type_cache.clear()
    axp.sum_along._kernels.pop(ToyArray, None)
    axp.sum_along._cache.clear()


def test_queries_answer_from_the_registration(toy):
    backend, _ = toy
    x = ToyArray(np.zeros((2, 3), dtype=np.float32))
    assert axp.backend_of(x) is backend
    assert axp.backend_named("toyarray") is backend and axp.resolve_library("toyarray") == "toy"
    assert axp.namespace(x) is TOY and axp.library_name(x) == "toy"
    assert axp.describe(x) == "toy.ToyArray(shape=(2, 3), dtype=float32, device=cpu)"
    assert not axp.has_float64(TOY) and axp.resolve_dtype(TOY, "float64") == np.float32


def test_where_an_array_lives_is_the_hooks_answer(toy):
    _, calls = toy
    vector, scalar = ToyArray(np.zeros(3)), ToyArray(np.float32(1.0))
    assert axp.is_on_host(vector) and not axp.is_on_host(scalar)
    assert calls.on_host == [vector, scalar]


def test_routed_op_takes_the_registered_kernel(toy):
    _, calls = toy
    x = ToyArray(np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(axp.to_numpy(axp.sum_along(x, axis=0)), [6.0, 9.0])
    assert calls.sum_along == 1
    axp.sum_along(np.ones((2, 2)), axis=0)  # another type: not the toy kernel
    assert calls.sum_along == 1


def test_conversions_use_the_hooks(toy):
    _, calls = toy
    a = np.arange(4.0)
    t = anywrap.convert.to_library(a, "toy")
    assert isinstance(t, ToyArray) and calls.imports == 1
    back = anywrap.convert.to_library(t, "numpy")
    np.testing.assert_array_equal(back, a)
    assert calls.exports == 1
    with pytest.raises(ValueError, match="toy arrays live on the cpu"):
        anywrap.convert.to_library(a, "toy", device="cuda:0")


def test_a_numpy_env_seen_through_the_toy_library(toy):
    _, calls = toy
    env = anywrap.ArrayConversion(gym.make("CartPole-v1"), to="toyarray", scalars=False)
    obs, _ = env.reset(seed=3)
    ref_env = gym.make("CartPole-v1")
    ref_obs, _ = ref_env.reset(seed=3)
    assert isinstance(obs, ToyArray)
    np.testing.assert_array_equal(obs._a, ref_obs)
    out = env.step(ToyArray(np.array(1)))  # the action goes back to NumPy through to_numpy
    ref = ref_env.step(1)
    np.testing.assert_array_equal(out[0]._a, ref[0])
    assert isinstance(out[1], ToyArray) and float(out[1]._a) == ref[1]
    assert calls.exports >= 1


def test_a_wrapper_stack_compiles_through_the_hook_and_gives_gymnasium_numbers(toy):
    _, calls = toy
    traj = record_vector_trajectory()
    ours = anywrap.vector.NormalizeObservation(
        anywrap.vector.RecordEpisodeStatistics(ReplayVectorEnv(traj, _toy_backend()))
    )
    theirs = gym.wrappers.vector.NormalizeObservation(
        gym.wrappers.vector.RecordEpisodeStatistics(ReplayVectorEnv(traj, make_backend("numpy")))
    )
    out, ref = run_vector(ours), run_vector(theirs)
    # each transform the stack ran was handed to the toy compiler once
    assert calls.jit and len(calls.jit) == len(set(map(id, calls.jit)))
    assert calls.sum_along > 0  # the moments summed through the toy kernel
    for a, b in zip(out, ref):
        assert isinstance(a[1], ToyArray)
        # the toy library has no float64 (has_float64 is False): float32 statistics,
        # as Gymnasium keeps for float32 observations
        np.testing.assert_allclose(a[1]._a, b[1], rtol=2e-6, atol=2e-6)
    assert ours.obs_rms.mean._a.dtype == np.float32


def _toy_backend() -> Any:
    from helpers import Backend

    return Backend(
        "toy", TOY, ToyArray, lambda x: ToyArray(np.array(x, copy=True)), lambda x: x._a, "cpu"
    )


def test_tensorflow_arrives_through_its_entry_point_only_when_met():
    pytest.importorskip("tensorflow")
    code = (
        "import sys, json, anywrap;"
        "from anywrap.xp import registry;"
        "before = 'anywrap.backends.tensorflow' in sys.modules;"
        "eps = {n: ep.value for n, ep in registry._entry_point_map().items()};"
        "import tensorflow as tf;"
        "middle = 'anywrap.backends.tensorflow' in sys.modules;"
        "name = anywrap.xp.backend_of(tf.zeros(2)).name;"
        "print(json.dumps([before, middle, name, eps,"
        " 'anywrap.backends.tensorflow' in sys.modules]))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=SRC, TF_CPP_MIN_LOG_LEVEL="3"),
        check=True,
        timeout=120,
    )
    before, middle, name, eps, after = json.loads(res.stdout.strip().splitlines()[-1])
    assert (before, middle, name, after) == (False, False, "tensorflow", True)
    assert eps["tensorflow"] == "anywrap.backends.tensorflow"
    # the core knows JAX and PyTorch only; TensorFlow is not named there
    assert "tensorflow" not in registry._CORE_LAZY


def test_an_unknown_library_name_lists_the_choices():
    with pytest.raises(ValueError, match=r"ToTorch.*unknown array library 'bogus'.*numpy"):
        anywrap.convert.to_library(np.zeros(2), "bogus", who="ToTorch")
