"""The built site, a pytest plugin (``pytest_plugins = ["site_build"]``) for this folder's tests.

It is not a ``conftest.py``: other folders' tests import names from their own
``conftest`` module, which one here would shadow.

The first worker to ask builds it with ``sphinx -W`` (warnings are errors)
into a folder all workers share; the others wait on a lock and reuse it.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass
class Site:
    html: Path  # the built site
    returncode: int
    log: str  # what sphinx printed (warnings included)
    seconds: float

    def pages(self) -> list[Path]:
        return sorted(self.html.rglob("*.html"))


def _build(out: Path) -> dict[str, object]:
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(out / "doctrees"),
            str(ROOT / "docs"),
            str(out / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    return {
        "returncode": done.returncode,
        "log": done.stdout + done.stderr,
        "seconds": time.perf_counter() - start,
    }


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    pytest.importorskip("sphinx")
    base = tmp_path_factory.getbasetemp()
    # Under pytest-xdist each worker has its own base folder, in a shared one.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "docs-site"
    out.mkdir(exist_ok=True)
    with open(out / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build; the other workers wait for it
        result = out / "result.json"
        if not result.exists():
            result.write_text(json.dumps(_build(out)))
        built = json.loads(result.read_text())
    return Site(html=out / "html", **built)
