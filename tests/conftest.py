"""Shared fixtures. Test utilities live in ``tests/helpers.py``."""

from __future__ import annotations

import os
import re
import sys

import gymnasium as gym
import pytest

# JAX runs on CPU here; say so before anything imports it (no accelerator probing).
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# PyTorch's transforms run eagerly in the suite: compiling costs seconds per
# transform and shape. tests/backends/test_torch_compile.py switches it on where it is tested.
os.environ.setdefault("ANYWRAP_TORCH_COMPILE", "0")

sys.path.insert(0, os.path.dirname(__file__))

from helpers import BACKENDS, Backend, make_backend
from skip_guard import SkipGuard

pytest_plugins = ["pytester"]


GYMNASIUM = tuple(int(part) for part in gym.__version__.split(".")[:2])

_RETURNS = (
    "the vector NormalizeReward resets the discounted return on the done step itself "
    "and keeps no done flags (1.4 restarts it on the next step, the reset step); its "
    "scaled rewards differ from 1.4's by up to 0.7%"
)
OLDER_GYMNASIUM: dict[str, str] = {
    "tests/integrations/test_cleanrl_stack.py::test_vector_stack_matches_gymnasium*": _RETURNS,
    "tests/integrations/test_cleanrl_stack.py::"
    "test_vector_reward_and_episode_stats_match*": _RETURNS,
    "tests/contracts/test_same_numbers.py::test_the_outputs_are_gymnasiums[vector.Normalize"
    "Reward]": _RETURNS,
    "tests/xp/test_registry.py::test_a_stack_on_the_toy_library_compiles": _RETURNS,
    "tests/backends/test_tensorflow.py::test_update_returns_on_tensorflow_matches": _RETURNS,
    "tests/backends/test_tensorflow.py::test_vector_shells_on_tensorflow": _RETURNS,
    "tests/backends/test_torch_compile.py::test_compiled_vector_stack_matches": _RETURNS,
    "tests/contracts/test_same_numbers_every_backend.py::"
    "test_vector_stack_same_type_and_numbers": _RETURNS,
    "tests/contracts/test_same_numbers_every_backend.py::"
    "test_vector_shells_reset_only_the_masked_sub_envs[*-Normalize"
    "Reward]": _RETURNS,
    "tests/integrations/test_phys2d.py::test_phys2d_jax_stack_matches_gymnasium": _RETURNS,
    "tests/functional/test_normalize_reward.py::test_with_x64_the_default_matches": _RETURNS,
    "tests/functional/test_same_numbers.py::test_the_stack_equals_gymnasiums_vector": _RETURNS,
    "tests/contracts/test_same_numbers.py::test_the_outputs_are_gymnasiums[vector.Dict"
    "InfoToList]": "Gymnasium 1.2's DictInfoToList raises KeyError('_r') on this case's "
    "info, which 1.4's takes",
    "tests/packaging/test_gymnasium_versions.py::"
    "test_the_reference_is_gymnasium_1_4s_own": _RETURNS,
    "tests/functional/test_record_episode_statistics.py::test_recent_episodes_match": (
        "the vector RecordEpisodeStatistics treats SAME_STEP autoreset as NEXT_STEP: "
        "it leaves out the first step of every episode after the first"
    ),
    "tests/wrappers/test_dtype_observation.py::test_the_observations_are_gymnasiums[Pendulum": (
        "DtypeObservation takes no dtype given by name ('float16')"
    ),
    "tests/vector/test_dtype_observation.py::test_the_observations_are_gymnasiums_in_every_mode"
    "[Pendulum": "DtypeObservation takes no dtype given by name ('float16')",
    "tests/wrappers/test_dtype_observation.py::test_the_observations_are_gymnasiums[FrozenLake": (
        "DtypeObservation declares a Discrete(n) space as Box(0, n) (1.4: Box(0, n - 1))"
    ),
    "tests/vector/test_dtype_observation.py::test_the_observations_are_gymnasiums_in_every_mode"
    "[FrozenLake": "DtypeObservation declares a Discrete(n) space as Box(0, n)",
    "tests/wrappers/test_frame_stack_observation.py::test_the_pipeline_on_device_arrays": (
        "FrameStackObservation stacks NumPy arrays only"
    ),
    "tests/functional/test_frame_stack_observation.py::test_a_jitted_scan_gives_gymnasiums": (
        "FrameStackObservation stacks NumPy arrays only"
    ),
    "tests/functional/test_frame_stack_observation.py::test_an_unbatched_env_stacks": (
        "FrameStackObservation stacks NumPy arrays only"
    ),
    "tests/vector/test_resize_observation.py::test_one_channel_frames_are_gymnasiums": (
        "the vector ResizeObservation fails on one-channel frames"
    ),
    "tests/vector/test_transform_observation.py::test_vector_transform_observation_accepts_same": (
        "the vector TransformObservation refuses SAME_STEP autoreset"
    ),
}
"""Tests that compare anywrap with what Gymnasium 1.4 does, where an older Gymnasium
does otherwise, by node id (``*`` matches anything; a pattern is a prefix). On an
older Gymnasium each is a strict ``xfail``: it must fail there (so the difference is
real), and it passes on 1.4. anywrap keeps 1.4's behaviour on every supported
release (tests/packaging/test_gymnasium_versions.py); the docs' Differences page lists these
with their figures."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if GYMNASIUM >= (1, 4):
        return
    for item in items:
        for pattern, reason in OLDER_GYMNASIUM.items():
            if re.match(re.escape(pattern).replace(r"\*", ".*"), item.nodeid):
                mark = pytest.mark.xfail(
                    strict=True, reason=f"Gymnasium {gym.__version__}: {reason}"
                )
                item.add_marker(mark)
                break


def pytest_configure(config: pytest.Config) -> None:
    """Register the guard that fails a CI run with skipped tests (see ``skip_guard.py``)."""
    config.pluginmanager.register(SkipGuard(), "anywrap-skip-guard")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """One array library: ``.name``, ``.xp``, ``.to_backend(np_array)``, ``.to_numpy(array)``.

    Skips when the library is not installed.
    """
    return make_backend(request.param)
