"""Cases of the conversion wrappers and RecordHTML (single and vector)."""

from __future__ import annotations

import tempfile

import array_api_compat.numpy as np_xp
import array_api_compat.torch as torch_xp
import gymnasium as gym
from contracts.case import Case

# Removed when the test process ends (a mkdtemp here left a folder behind per run).
_REPORTS = tempfile.TemporaryDirectory(prefix="anywrap-case-")


def single(env_id: str = "Pendulum-v1") -> gym.Env:
    return gym.make(env_id, max_episode_steps=15)


def vector(env_id: str = "Pendulum-v1") -> gym.vector.VectorEnv:
    return gym.make_vec(env_id, num_envs=4, vectorization_mode="sync", max_episode_steps=15)


def jax_single() -> gym.Env:
    return gym.make("phys2d/CartPole-v1")


def jax_vector() -> gym.vector.VectorEnv:
    return gym.make_vec("phys2d/CartPole-v1", num_envs=4)


_HOST = "a single env reads rewards and flags as Python numbers (scalars=True, as Gymnasium)"
_NUMPY = "NumPy lives on the host: converting to it reads the device by definition"
_RECORD = "RecordHTML copies what it records to the host (its report is a host file)"


def _cases(vector_: bool) -> list[Case]:
    env, jax_env = (vector, jax_vector) if vector_ else (single, jax_single)
    replay = vector_  # a vector conversion keeps everything an array
    # Gymnasium's ArrayConversion takes Array API namespaces (array-api-compat's).
    torch_args = {"env_xp": np_xp, "target_xp": torch_xp}
    return [
        Case("ArrayConversion", vector_, env, kwargs=torch_args, replay=False, note=_NUMPY),
        Case("NumpyToTorch", vector_, env, replay=False, note=_NUMPY),
        Case("JaxToNumpy", vector_, jax_env, replay=False, note=_NUMPY),
        Case("JaxToTorch", vector_, jax_env, replay=False, note="a JAX env only: see ToTorch"),
        Case("ToTorch", vector_, env, reference=False, replay=replay, note=_HOST),
        Case("ToJax", vector_, env, reference=False, replay=False, note=_NUMPY),
        Case("ToNumpy", vector_, env, reference=False, replay=False, note=_NUMPY),
        Case("ToTensorFlow", vector_, env, reference=False, replay=False, note=_NUMPY),
        Case(
            "RecordHTML",
            vector_,
            env,
            kwargs={"report_folder": _REPORTS.name, "frames": False},
            reference=False,
            replay=False,
            note=_RECORD,
        ),
    ]


CASES: list[Case] = [*_cases(False), *_cases(True)]
