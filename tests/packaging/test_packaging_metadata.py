"""The package's metadata declares ranges, never pins, and the compatibility run tests each floor.

A user installs anywrap beside a stack that already chose its torch and its
Gymnasium (IsaacLab, ManiSkill, gymnax, MuJoCo Playground): an exact pin in
any extra makes pip replace their version without a word, and a floor that no
test ran is a promise nobody checked. The compatibility run (``make
test-compat``) installs the oldest release of each range; this test keeps the
Makefile's pins and pyproject.toml's floors in step.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _requirements() -> dict[str, list[Requirement]]:
    """Every requirement, by where it is declared ("dependencies" or the extra's name)."""
    project = _project()
    out = {"dependencies": [Requirement(r) for r in project["dependencies"]]}
    for extra, reqs in project["optional-dependencies"].items():
        out[extra] = [Requirement(r) for r in reqs]
    return out


def _external() -> list[tuple[str, Requirement]]:
    return [
        (where, req)
        for where, reqs in _requirements().items()
        for req in reqs
        if canonicalize_name(req.name) != "anywrap"
    ]


def _floor(req: Requirement) -> Version | None:
    floors = [Version(s.version) for s in req.specifier if s.operator in (">=", "~=")]
    return max(floors) if floors else None


def _makefile_var(name: str) -> str:
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    match = re.search(rf"^{name}\s*\?=(.*)$", text, re.MULTILINE)
    assert match, f"Makefile sets no {name}"
    return match.group(1)


def _compat_pins() -> dict[str, Version]:
    pins = {"torch": Version(_makefile_var("COMPAT_TORCH").strip())}
    for name, version in re.findall(r'"([A-Za-z0-9_.-]+)==([^"]+)"', _makefile_var("COMPAT_PINS")):
        pins[canonicalize_name(name)] = Version(version)
    return pins


@pytest.mark.parametrize("where, req", _external(), ids=lambda v: str(v))
def test_no_exact_pin(where: str, req: Requirement) -> None:
    pinned = [s for s in req.specifier if s.operator in ("==", "===")]
    assert not pinned, f"{where}: {req} pins a version; declare a range"


def test_the_ranges_admit_the_stacks_users_run() -> None:
    """Gymnasium 1.2 (IsaacLab) and torch 2.7 (ManiSkill's floor) are inside the ranges."""
    reqs = {canonicalize_name(r.name): r for _, r in _external()}
    assert reqs["gymnasium"].specifier.contains("1.2.0")
    assert reqs["gymnasium"].specifier.contains("1.4.0")
    assert _floor(reqs["gymnasium"]) <= Version("1.2")
    assert _floor(reqs["torch"]) <= Version("2.7")
    for version in ("2.7.1", "2.11.0", "2.13.0", "2.14.1"):
        assert reqs["torch"].specifier.contains(version), version


def test_every_backend_requirement_has_a_floor() -> None:
    for where, req in _external():
        if where in ("dev", "progress") or canonicalize_name(req.name) == "flax":
            continue  # the test tools; tqdm; flax follows jax
        assert _floor(req) is not None, f"{where}: {req} has no lower bound"


def test_torch_is_required_only_by_the_torch_extra() -> None:
    """The peers extra (TorchRL) takes the torch installed, never a second pin of its own."""
    for where, req in _external():
        if canonicalize_name(req.name) == "torch":
            assert where == "torch", f"{where} requires torch itself: {req}"


def test_the_compatibility_run_installs_each_floor() -> None:
    """Each pin of ``make test-compat`` is the floor's release series, and each floor is pinned."""
    pins = _compat_pins()
    floors: dict[str, Version] = {}
    for _, req in _external():
        floor = _floor(req)
        if floor is not None:
            floors[canonicalize_name(req.name)] = floor
    tested = (
        "gymnasium numpy array-api-compat torch jax tensorflow-cpu safetensors pillow "
        "opencv-python-headless tqdm"
    ).split()
    for name in tested:
        assert name in floors, f"{name} has no floor in pyproject.toml"
        assert name in pins, f"make test-compat does not pin {name} (floor {floors[name]})"
        floor, pin = floors[name], pins[name]
        assert pin >= floor, f"{name}: the compatibility run's {pin} is below the floor {floor}"
        assert pin.release[: len(floor.release)] == floor.release, (
            f"{name}: the compatibility run tests {pin}, not the floor {floor}'s release"
        )
