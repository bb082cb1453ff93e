"""Shared fixtures. Test utilities live in ``tests/helpers.py``."""

from __future__ import annotations

import os
import sys

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


def pytest_configure(config: pytest.Config) -> None:
    """Register the guard that fails a CI run with skipped tests (see ``skip_guard.py``)."""
    config.pluginmanager.register(SkipGuard(), "anywrap-skip-guard")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """One array library: ``.name``, ``.xp``, ``.to_backend(np_array)``, ``.to_numpy(array)``.

    Skips when the library is not installed.
    """
    return make_backend(request.param)
