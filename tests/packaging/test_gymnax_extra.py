"""The gymnax extra brings what gymnax imports (issue 34): gymnax 1.0.1 imports six
without declaring it, and the test venv had six only through TensorFlow. Here gymnax
runs in a fresh interpreter that can import only the distributions the extra's
requirements bring (what ``pip install ".[gymnax]"`` installs), TensorFlow not among
them, and the README's gymnax example runs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("gymnax")


def _closure(extra: str) -> set[str]:
    """The distributions that installing anywrap with ``extra`` brings (as installed here)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    extras = project["optional-dependencies"]
    todo = [Requirement(r) for r in project["dependencies"]]
    todo += [Requirement(r) for r in extras[extra]]
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name == "anywrap":  # anywrap[jax] inside an extra
            todo += [Requirement(r) for e in req.extras for r in extras[e]]
            continue
        if name in seen:
            continue
        seen.add(name)
        for dep in metadata.requires(name) or []:
            r = Requirement(dep)
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(r)
    return seen


def test_gymnax_runs_with_what_its_extra_brings_and_nothing_else():
    allowed = _closure("gymnax")
    assert "tensorflow" not in allowed and "tensorflow-cpu" not in allowed
    owners = metadata.packages_distributions()
    blocked = sorted(
        module
        for module, dists in owners.items()
        if module != "anywrap" and not {canonicalize_name(d) for d in dists} & allowed
    )
    code = textwrap.dedent(
        """
        import sys
        blocked = frozenset(sys.argv[1:])

        class Uninstalled:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in blocked:
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, Uninstalled())
        import jax, jax.numpy as jnp, gymnax
        from anywrap import functional as F

        env = F.NormalizeObservation(F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=8))
        obs, state = env.reset(jax.random.key(0))
        step = env.step(state, jnp.zeros((8, 1)))
        assert "tensorflow" not in sys.modules and "six" in sys.modules
        print(step.obs.shape)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *blocked],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "(8, 3)", done.stdout
