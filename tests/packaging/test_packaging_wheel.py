"""``python -m build`` makes an sdist and a wheel a user can install.

The wheel is built from the sdist (so the sdist is complete), installed into a
fresh virtual environment, and every public module is imported from there.
Offline: the build uses this environment's setuptools (``--no-isolation``) and
the fresh environment borrows this one's site-packages for the dependencies
(the wheel itself goes in with ``--no-deps --no-index``), so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]

# The modules users import by name; every other module without a leading
# underscore in its path is imported too (found by walking the installed package).
PUBLIC = (
    "anywrap",
    "anywrap.vector",
    "anywrap.functional",
    "anywrap.convert",
    "anywrap.xp",
    "anywrap.record",
    "anywrap.checkpoint",
    "anywrap.distributed",
    "anywrap.cli",
)

IMPORT_ALL = r"""
import importlib, json, pkgutil, sys
import anywrap
heavy = sorted(m for m in ("jax", "torch", "tensorflow") if m in sys.modules)
names = set(json.loads(sys.argv[1]))
for info in pkgutil.walk_packages(anywrap.__path__, "anywrap."):
    if not any(part.startswith("_") for part in info.name.split(".")):
        names.add(info.name)
files = {name: importlib.import_module(name).__file__ for name in sorted(names)}
print(json.dumps({"heavy_on_import": heavy, "files": files}))
"""


def _run(*args: str | os.PathLike, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{args[:4]} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # No isolation: no build environment to download; the sdist is built, then
    # the wheel from the unpacked sdist. It runs outside the checkout, whose build/
    # (the docs site's output) would shadow the build package.
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT, cwd=out)
    (wheel,) = out.glob("anywrap-*.whl")
    (sdist,) = out.glob("anywrap-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def test_the_wheel_ships_the_package_and_nothing_else(dist: dict[str, Path]) -> None:
    names = zipfile.ZipFile(dist["wheel"]).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"anywrap", next(t for t in tops if t.endswith(".dist-info"))}, tops
    assert "anywrap/py.typed" in names
    assert "anywrap/record/template.html" in names
    unwanted = [
        n
        for n in names
        if "/tests/" in f"/{n}"
        or "bench-results" in n
        or n.startswith("anywrap/bench/")  # the benchmarks stay in the checkout
        or n.endswith((".png", ".jpg", ".gif", ".pyc"))
        or "/docs/" in f"/{n}"
    ]
    assert not unwanted, f"the wheel ships {unwanted}"


def test_the_sdist_builds_the_same_package(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as tar:
        names = tar.getnames()
    prefix = names[0].split("/")[0]
    assert f"{prefix}/pyproject.toml" in names
    assert f"{prefix}/src/anywrap/py.typed" in names
    assert f"{prefix}/src/anywrap/record/template.html" in names


def test_the_metadata_declares_ranges(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as whl:
        (meta,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        text = whl.read(meta).decode()
        entry_points = whl.read(meta.replace("METADATA", "entry_points.txt")).decode()
    requires = [
        Requirement(line.split(":", 1)[1])
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]
    assert requires, text[:500]
    pinned = [str(r) for r in requires if any(s.operator in ("==", "===") for s in r.specifier)]
    assert not pinned, pinned
    assert "[anywrap.backends]" in entry_points
    assert "anywrap = anywrap.cli:main" in entry_points


def test_the_wheel_installs_into_a_fresh_venv_and_imports(
    dist: dict[str, Path], tmp_path: Path
) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False, symlinks=True)
    python = env_dir / "bin" / "python"
    site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip()
    )
    # The dependencies come from this environment's site-packages, appended after the
    # fresh one's (a plain path: its .pth files, this checkout's editable install
    # among them, are not read).
    here = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "zz_borrowed_dependencies.pth").write_text("\n".join(sorted(here)) + "\n")
    # --ignore-installed: pip sees this checkout's editable anywrap in the borrowed
    # site-packages; the wheel goes in beside it, and nothing is uninstalled there.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
        "--no-index", "--ignore-installed", "--disable-pip-version-check", dist["wheel"],
        env=env,
    )  # fmt: skip
    result = _run(python, "-c", IMPORT_ALL, json.dumps(PUBLIC), cwd=tmp_path, env=env)
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["heavy_on_import"] == [], "import anywrap imported " + str(report)
    files = report["files"]
    assert set(PUBLIC) <= set(files)
    outside = {name: f for name, f in files.items() if not f.startswith(str(site))}
    assert not outside, f"imported from outside the installed wheel: {outside}"
    assert (site / "anywrap" / "py.typed").is_file()
    # The console script runs from the fresh environment.
    _run(env_dir / "bin" / "anywrap", "--help", cwd=tmp_path, env=env)
