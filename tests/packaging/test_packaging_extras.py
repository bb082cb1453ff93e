"""One import test per extra: each extra's libraries import, at a version its range admits.

The ranges are pyproject.toml's (read from the source, not from an installed
copy). Run by ``make test`` on today's versions and by ``make test-compat`` on
the oldest ones, so both ends of every range import.
"""

from __future__ import annotations

import subprocess
import sys
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

# The module each distribution installs, where the names differ.
MODULE = {
    "tensorflow-cpu": "tensorflow",
    "opencv-python-headless": "cv2",
    "pillow": "PIL",
    "array-api-compat": "array_api_compat",
}

# The anywrap modules that each extra serves, imported with it. The peers extra serves
# the benchmarks' TorchRL side (B5), which lives in the checkout, not in the package.
SERVES = {
    "jax": ("anywrap.functional",),
    "tf": ("anywrap.backends.tensorflow",),
    "io": ("anywrap.checkpoint",),
    "record": ("anywrap.record",),
    "peers": ("benchmarks.suite.envs",),
}


def _extras() -> dict[str, list[Requirement]]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    extras = {"dependencies": [Requirement(r) for r in project["dependencies"]]}
    for name, reqs in project["optional-dependencies"].items():
        if name not in ("all", "dev"):  # these only gather the others
            extras[name] = [Requirement(r) for r in reqs]
    return extras


@pytest.mark.parametrize("extra", sorted(_extras()))
def test_extra_imports_in_range(extra: str) -> None:
    modules = []
    for req in _extras()[extra]:
        if canonicalize_name(req.name) == "anywrap":
            continue
        name = canonicalize_name(req.name)
        version = metadata.version(name)
        assert req.specifier.contains(version, prereleases=True), (
            f"[{extra}] {name} {version} is outside the declared {req.specifier}"
        )
        modules.append(MODULE.get(name, name.replace("-", "_")))
    modules += SERVES.get(extra, ())
    # In a fresh interpreter: each extra imports on its own, as in a user's program,
    # and a library that crashes its process (a native import clash) fails this test only.
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)"
    done = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, f"[{extra}] importing {modules}: {done.stderr[-2000:]}"
