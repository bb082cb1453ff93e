"""The backend registry: a library plugs in with one public call, ``register_backend``
(a toy library defined here, as an outside package would), JAX, PyTorch and
TensorFlow load only when met, from any thread, and ``import anywrap`` stays light."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from helpers import (
    GYM_VECTOR,
    Backend,
    ReplayVectorEnv,
    make_backend,
    record_vector_trajectory,
    run_vector,
)
from toy_array import TOY, ToyArray

import anywrap
from anywrap import xp

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "src")


class Calls:
    """What the toy backend's hooks were asked to do."""

    jit: list[Callable[..., Any]] = []
    imports = 0
    exports = 0


def _jit(fn: Callable[..., Any], donate: bool = False) -> Callable[..., Any]:
    Calls.jit.append(fn)
    return fn


def _to_numpy(x: ToyArray) -> np.ndarray:
    Calls.exports += 1
    return np.asarray(x._a)


def _from_array(x: Any, device: Any) -> ToyArray:
    Calls.imports += 1
    if device not in (None, "cpu"):
        raise ValueError(f"toy arrays live on the cpu, not {device!r}")
    return x if isinstance(x, ToyArray) else ToyArray(np.array(xp.to_numpy(x)))


xp.register_backend(
    ToyArray,
    namespace=TOY,
    name="toy",
    device=lambda x: "cpu",
    to_numpy=_to_numpy,
    from_array=_from_array,
    jit=_jit,
    aliases=("toyarray",),
)

TOY_BACKEND = Backend(
    "toy", TOY, ToyArray, lambda x: ToyArray(np.array(x, copy=True)), lambda x: x._a, "cpu"
)


def _run(code: str, **env: str) -> Any:
    """``code`` in a fresh interpreter (anywrap from the source tree); its last line, as JSON."""
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=SRC, **env),
        check=True,
        timeout=180,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_the_registration_answers_every_query() -> None:
    x = ToyArray(np.zeros((2, 3), dtype=np.float32))
    assert xp.namespace(x) is TOY
    assert xp.library_name(x) == "toy" and xp.library_name("toyarray") == "toy"
    assert xp.device(x) == "cpu"
    assert xp.describe(x) == "toy.ToyArray(shape=(2, 3), dtype=float32, device=cpu)"
    before = Calls.exports
    np.testing.assert_array_equal(xp.to_numpy(x), np.zeros((2, 3)))
    assert Calls.exports == before + 1


def test_conversions_go_through_the_hooks() -> None:
    before = Calls.imports
    t = anywrap.convert.to_library(np.arange(4.0), "toy")
    assert isinstance(t, ToyArray) and Calls.imports == before + 1
    np.testing.assert_array_equal(anywrap.convert.to_library(t, "numpy"), np.arange(4.0))
    with pytest.raises(ValueError, match="toy arrays live on the cpu"):
        anywrap.convert.to_library(np.zeros(2), "toy", device="cuda:0")


def test_a_stack_on_the_toy_library_compiles_through_its_hook_and_gives_gymnasiums_numbers():
    traj = record_vector_trajectory()
    rec = anywrap.vector.RecordEpisodeStatistics(ReplayVectorEnv(traj, TOY_BACKEND))
    obs_layer = anywrap.vector.NormalizeObservation(rec)
    env = anywrap.vector.NormalizeReward(obs_layer, gamma=0.99)
    Calls.jit.clear()
    out = run_vector(env)
    assert len(Calls.jit) >= 3  # each stateful shell's transforms, handed to the toy compiler
    ref_rec = GYM_VECTOR.RecordEpisodeStatistics(ReplayVectorEnv(traj, make_backend("numpy")))
    ref_obs = GYM_VECTOR.NormalizeObservation(ref_rec)
    ref_out = run_vector(GYM_VECTOR.NormalizeReward(ref_obs, gamma=0.99))
    for a, b in zip(out, ref_out):
        assert isinstance(a[1], ToyArray)
        np.testing.assert_allclose(a[1]._a, b[1], rtol=1e-6, atol=1e-6)
        if a[0] == "step":
            assert isinstance(a[2], ToyArray) and isinstance(a[5]["episode"]["r"], ToyArray)
            np.testing.assert_allclose(a[2]._a, b[2], rtol=1e-9)
    assert isinstance(obs_layer.obs_rms.mean, ToyArray) and isinstance(env.return_rms.var, ToyArray)
    np.testing.assert_allclose(obs_layer.obs_rms.var._a, ref_obs.obs_rms.var, rtol=1e-6)
    assert rec.episode_count == ref_rec.episode_count > 0


def test_a_numpy_env_seen_through_the_toy_library() -> None:
    env = anywrap.ArrayConversion(gym.make("CartPole-v1"), to="toyarray", scalars=False)
    ref = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=3)
    np.testing.assert_array_equal(obs._a, ref.reset(seed=3)[0])
    out, want = env.step(ToyArray(np.array(1))), ref.step(1)
    np.testing.assert_array_equal(out[0]._a, want[0])
    assert isinstance(out[1], ToyArray) and float(out[1]._a) == want[1]


def test_an_unknown_array_type_says_how_to_register_it() -> None:
    class Opaque:
        shape, dtype = (2,), "float32"

    with pytest.raises(xp.UnknownArrayTypeError, match=r"not an array of a known library.*"):
        xp.namespace(Opaque())
    with pytest.raises(TypeError, match=r"register_namespace\(.*Opaque"):
        xp.namespace(Opaque())


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"array_types": "Tagged"}, "array_types"),
        ({"name": 3}, "name"),
        ({"aliases": "tg"}, "aliases"),  # a str was split into the names 't' and 'g'
        ({"device": "cpu"}, "device"),
        ({"jit": 1}, "jit"),
    ],
)
def test_register_backend_refuses_what_it_cannot_use_before_it_registers(kwargs, key) -> None:
    """device="cpu" was registered, and every later xp.device() call failed ("'str' object is
    not callable"); a str type failed on its __module__."""

    class Fresh(np.ndarray): ...

    args = {"array_types": Fresh, "namespace": np, "name": "fresh_lib", **kwargs}
    with pytest.raises(TypeError, match=rf"register_backend: expected `{key}` to be "):
        xp.register_backend(args.pop("array_types"), **args)
    assert xp.library_name(np.zeros(2).view(Fresh)) != "fresh_lib"  # nothing registered
    with pytest.raises(ValueError, match="unknown array library 'fresh_lib'"):
        xp.library_name("fresh_lib")


def test_an_unknown_library_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match=r"ToTorch: unknown array library 'bogus'.*'numpy'"):
        anywrap.convert.to_library(np.zeros(2), "bogus", who="ToTorch")


def test_namespace_maps_host_values_to_numpy_and_refuses_a_mix() -> None:
    torch = pytest.importorskip("torch")
    assert xp.namespace(np.zeros(2)) is np and xp.namespace(1.0, None, np.float32(2)) is np
    with pytest.raises(TypeError, match="mixed"):
        xp.namespace(torch.zeros(2), ToyArray(np.zeros(2)))
    with pytest.raises(TypeError, match="at least one array"):
        xp.namespace()


def test_float64_follows_the_library() -> None:
    jnp = pytest.importorskip("jax.numpy")
    import jax

    assert xp.wide_float(np) is np.float64
    with jax.enable_x64(False):
        assert xp.wide_float(jnp) == jnp.float32 and xp.resolve_dtype(jnp, "int64") == jnp.int32
    with jax.enable_x64(True):  # the switch is read each time, not cached
        assert xp.wide_float(jnp) == jnp.float64


def test_import_anywrap_pulls_in_no_heavy_library() -> None:
    heavy = ("jax", "jaxlib", "torch", "tensorflow", "flax")
    loaded, unlisted = _run(
        "import sys, json, anywrap, anywrap.vector, anywrap.xp, anywrap.transforms;"
        "unlisted = sorted(set(anywrap.__all__) - set(dir(anywrap)));"  # dir() loads nothing
        f"print(json.dumps([sorted(m for m in {heavy!r} if m in sys.modules), unlisted]))"
    )
    assert (loaded, unlisted) == ([], [])


def test_tensorflow_arrives_through_its_entry_point_only_when_met() -> None:
    pytest.importorskip("tensorflow")
    before, middle, name, after = _run(
        "import sys, json, anywrap;"
        "before = 'anywrap.backends.tensorflow' in sys.modules;"
        "import tensorflow as tf;"
        "middle = 'anywrap.backends.tensorflow' in sys.modules;"
        "name = anywrap.xp.library_name(tf.zeros(2));"
        "print(json.dumps([before, middle, name, 'anywrap.backends.tensorflow' in sys.modules]))",
        TF_CPP_MIN_LOG_LEVEL="3",
    )
    assert (before, middle, name, after) == (False, False, "tensorflow", True)
    assert "tensorflow" not in xp.core._CORE  # the core names JAX and PyTorch only


def test_backends_load_safely_from_many_threads_at_once() -> None:
    """Four threads meet PyTorch for the first time together: every one of them gets
    the registered backend (the registry marks a backend loaded only once its module
    has finished registering)."""
    pytest.importorskip("torch")
    results = _run(
        "import json, threading, numpy as np, gymnasium as gym, anywrap\n"
        "out, barrier = [], threading.Barrier(4)\n"
        "def run():\n"
        "    try:\n"
        "        env = anywrap.NormalizeObservation(anywrap.ToTorch(gym.make('Pendulum-v1')))\n"
        "        barrier.wait()\n"
        "        env.reset(seed=0)\n"
        "        env.step(np.zeros(1, np.float32))\n"
        "        out.append(type(env.obs_rms.mean).__name__)\n"
        "    except Exception as e:\n"
        "        out.append(f'{type(e).__name__}: {e}')\n"
        "threads = [threading.Thread(target=run) for _ in range(4)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(json.dumps(out))\n"
    )
    assert results == ["Tensor"] * 4
