"""The examples in the benchmark suite's docstrings run and print what they say (the
suite left the package, and with it tests/docs/test_doctests.py's walk)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import benchmarks.suite

# The libraries a module's examples need; CI installs them all.
NEEDS = {
    "benchmarks.suite.calibrate": ("jax",),
    "benchmarks.suite.convert_bench": ("jax", "torch"),
    "benchmarks.suite.functional_bench": ("gymnax", "brax"),
}
HAS_EXAMPLES = {
    "benchmarks.suite",
    "benchmarks.suite.calibrate",
    "benchmarks.suite.common",
    "benchmarks.suite.convert_bench",
    "benchmarks.suite.harness",
    "benchmarks.suite.images_bench",
}


def modules() -> list[str]:
    found = pkgutil.walk_packages(benchmarks.suite.__path__, "benchmarks.suite.")
    return sorted(["benchmarks.suite", *(info.name for info in found)])


@pytest.mark.parametrize("name", modules())
def test_docstring_examples(name: str) -> None:
    for package in NEEDS.get(name, ()):
        pytest.importorskip(package)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
    # A module that gains or loses its examples must update HAS_EXAMPLES.
    assert (result.attempted > 0) == (name in HAS_EXAMPLES), (name, result.attempted)
