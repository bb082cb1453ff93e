"""Statistics of a batch sharded over 4 (host CPU) devices are the global statistics.

The device count must be set before JAX starts, so the checks run in a
subprocess (see ``_sharded_script.py``): (a) ``jax.jit`` over a
NamedSharding-sharded batch, (b) ``shard_map`` with the wrappers' ``axis_name``;
each must equal the single-device run within float tolerance.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("gymnax")


def test_sharded_statistics_equal_single_device():
    script = Path(__file__).with_name("_sharded_script.py")
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
    assert "SHARDED-OK" in proc.stdout
