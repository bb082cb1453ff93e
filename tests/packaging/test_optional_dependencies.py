"""A public call that needs an optional dependency which is not installed says which
extra installs it (issue 34: ``save_state`` raised a bare "No module named
'safetensors'"). Each case runs in a fresh interpreter where the module cannot be
imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

CALLS = {
    "save_state": (
        "safetensors",
        "io",
        "anywrap.save_state(anywrap.NormalizeObservation(gym.make('CartPole-v1')), 's.st')",
    ),
    "load_state": (
        "safetensors",
        "io",
        "anywrap.load_state(anywrap.NormalizeObservation(gym.make('CartPole-v1')), 's.st')",
    ),
    "ToJax": ("jax", "jax", "anywrap.ToJax(gym.make('CartPole-v1'))"),
    "vector.ToJax": ("jax", "jax", "anywrap.vector.ToJax(gym.make_vec('CartPole-v1', 2))"),
    "functional": ("jax", "jax", "import anywrap.functional"),
    "ToTorch": ("torch", "torch", "anywrap.ToTorch(gym.make('CartPole-v1'))"),
    "ArrayConversion to tf": (
        "tensorflow",
        "tf",
        "anywrap.ArrayConversion(gym.make('CartPole-v1'), to='tf')",
    ),
}

PROGRAM = textwrap.dedent(
    """
    import sys
    missing = sys.argv[1]

    class Uninstalled:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == missing:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Uninstalled())
    import gymnasium as gym
    import anywrap
    exec(sys.argv[2])
    """
)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_missing_optional_dependency_names_its_extra(call, tmp_path):
    module, extra, code = CALLS[call]
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, module, code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"},
        timeout=300,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: anywrap."), done.stderr[-2000:]
    assert f"needs {module}, which is not installed" in last and f'".[{extra}]"' in last, last
    assert not list(tmp_path.iterdir())  # nothing written
