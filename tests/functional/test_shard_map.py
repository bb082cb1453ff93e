"""Statistics of a batch sharded over 4 (host CPU) devices are the global statistics.

The device count must be set before JAX starts, so the checks run in
subprocesses: ``_sharded_script.py`` ((a) ``jax.jit`` over a
NamedSharding-sharded batch, (b) ``shard_map`` with the normalisers'
``axis_name``, (c) the batched gymnax adapter under ``shard_map``) and
``_sharded_stack_script.py`` (the whole six-wrapper stack under ``shard_map``
with replicated ``out_specs`` and JAX's replication check on); each must equal
the single-device run within float tolerance.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("gymnax")


def run_script(name: str) -> str:
    script = Path(__file__).with_name(name)
    src = Path(__file__).resolve().parents[2] / "src"
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
        "JAX_PLATFORMS": "cpu",
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return proc.stdout


def test_sharded_statistics_equal_single_device():
    assert "SHARDED-OK" in run_script("_sharded_script.py")


def test_six_wrapper_stack_under_shard_map_with_replicated_statistics():
    assert "SHARDED-STACK-OK" in run_script("_sharded_stack_script.py")
