"""A third-party array type plugs in with `anywrap.xp.register_namespace`, and
`import anywrap` pulls in no heavy array library."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers import Backend, ReplayVectorEnv, record_vector_trajectory, run_vector

import anywrap
from anywrap import xp as axp


class ToyArray:
    """A minimal array type wrapping a NumPy array; deliberately not an ndarray.

    It refuses ``bool`` / ``float`` / ``int``, so a shell that branches on its
    values fails here instead of silently syncing.
    """

    __slots__ = ("_a",)
    __array_priority__ = 1000  # NumPy arrays defer to us in mixed arithmetic

    def __init__(self, a: Any) -> None:
        self._a = np.asarray(a)

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    device = property(lambda self: "cpu")

    def __array__(self, dtype=None, copy=None):  # host copies (checkpoints) only
        return np.asarray(self._a, dtype=dtype)

    def __getitem__(self, key: Any) -> ToyArray:
        return ToyArray(self._a[_unwrap(key)])

    def __bool__(self) -> bool:
        raise TypeError("ToyArray has no host truth value (would be a sync)")

    __float__ = __int__ = __index__ = __bool__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToyArray({self._a!r})"


def _unwrap(x: Any) -> Any:
    if isinstance(x, ToyArray):
        return x._a
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    return x


def _wrap(x: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic)):
        return ToyArray(x)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def _binary(name: str):
    op = getattr(np.ndarray, name)
    return lambda self, other: _wrap(op(self._a, _unwrap(other)))


for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__pow__",
    "__rpow__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__eq__",
    "__ne__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__floordiv__",
    "__mod__",
):
    setattr(ToyArray, _name, _binary(_name))
ToyArray.__neg__ = lambda self: ToyArray(-self._a)  # type: ignore[attr-defined]
ToyArray.__invert__ = lambda self: ToyArray(~self._a)  # type: ignore[attr-defined]
ToyArray.__abs__ = lambda self: ToyArray(abs(self._a))  # type: ignore[attr-defined]
ToyArray.__hash__ = None  # type: ignore[assignment]


class ToyNamespace(ModuleType):
    """A module-like Array API namespace for ToyArray: NumPy's functions, wrapped."""

    def __getattr__(self, name: str) -> Any:
        target = getattr(np, name)
        if not callable(target) or isinstance(target, type):
            return target  # dtypes, constants

        def fn(*args: Any, **kwargs: Any) -> Any:
            return _wrap(target(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

        return fn


TOY = ToyNamespace("toy_array_namespace")


@pytest.fixture
def toy_backend() -> Backend:
    axp.register_namespace(ToyArray, lambda x: TOY)
    yield Backend(
        "toy",
        TOY,
        ToyArray,
        lambda x: ToyArray(np.array(x, copy=True)),
        lambda x: np.asarray(x._a),
        "cpu",
    )
    from anywrap.xp import registry

    registry._by_type.pop(ToyArray, None)
    registry._type_cache.clear()


def test_namespace_of_a_registered_type(toy_backend):
    x = ToyArray(np.zeros(3))
    assert axp.namespace(x) is TOY
    assert "ToyArray" in axp.describe(x)


def test_stack_on_a_registered_array_type(toy_backend):
    traj = record_vector_trajectory()
    replay = ReplayVectorEnv(traj, toy_backend)
    rec = anywrap.vector.RecordEpisodeStatistics(replay)
    obs_layer = anywrap.vector.NormalizeObservation(rec)
    env = anywrap.vector.NormalizeReward(obs_layer, gamma=0.99)
    out = run_vector(env)
    assert len(out) == len(traj.events)
    for event in out:
        assert isinstance(event[1], ToyArray), type(event[1])
        if event[0] == "step":
            assert isinstance(event[2], ToyArray), type(event[2])
            assert isinstance(event[5]["episode"]["r"], ToyArray)
    assert isinstance(obs_layer.obs_rms.mean, ToyArray)
    assert isinstance(env.return_rms.var, ToyArray)
    # Gymnasium's numbers, from its wrappers on a NumPy replay
    from helpers import GYM_VECTOR, make_backend

    ref_rec = GYM_VECTOR.RecordEpisodeStatistics(ReplayVectorEnv(traj, make_backend("numpy")))
    ref_obs = GYM_VECTOR.NormalizeObservation(ref_rec)
    ref = GYM_VECTOR.NormalizeReward(ref_obs, gamma=0.99)
    ref_out = run_vector(ref)
    for a, b in zip(out, ref_out):
        np.testing.assert_allclose(a[1]._a, b[1], rtol=1e-6, atol=1e-6)
        if a[0] == "step":
            np.testing.assert_allclose(a[2]._a, b[2], rtol=1e-9)
    np.testing.assert_allclose(obs_layer.obs_rms.var._a, ref_obs.obs_rms.var, rtol=1e-6)
    assert rec.episode_count == ref_rec.episode_count > 0


def test_import_anywrap_pulls_in_no_heavy_library():
    code = (
        "import sys, json, anywrap, anywrap.vector, anywrap.xp, anywrap.transforms;"
        "print(json.dumps(sorted(m for m in ('jax', 'jaxlib', 'torch', 'tensorflow', 'flax')"
        " if m in sys.modules)))"
    )
    src = os.path.join(os.path.dirname(os.path.dirname(__file__)), "src")
    env = dict(os.environ, PYTHONPATH=src)
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    assert json.loads(res.stdout.strip().splitlines()[-1]) == []
