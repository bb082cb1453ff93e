"""Every example in the package's docstrings runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import anywrap

# Modules whose examples need optional packages name them; CI installs them all.
NEEDS = {"anywrap.functional": "gymnax", "anywrap.backends": "tensorflow"}

# Internal, benchmark and package-index modules with no examples of their own
# (the public classes they hold are checked by test_public_classes_have_examples).
NO_EXAMPLES = {
    "anywrap.shell",
    "anywrap.bench.convert_bench",
    "anywrap.bench.envs",
    "anywrap.bench.functional_bench",
    "anywrap.bench.report",
    "anywrap.bench.runner",
    "anywrap.bench.b1_numpy_single",
    "anywrap.bench.b2_numpy_vector",
    "anywrap.bench.b3_jax_vector",
    "anywrap.bench.b4_functional",
    "anywrap.bench.b5_torch",
    "anywrap.bench.b6_conversion",
    "anywrap.bench.b7_images",
    "anywrap.bench.b8_roofline",
    "anywrap.bench.suite",
    "anywrap.cli",
    "anywrap.demo",
    "anywrap.transforms",
    "anywrap.vector",
    "anywrap.wrappers",
    "anywrap.xp._jax",
    "anywrap.xp._torch",
}


def modules() -> list[str]:
    names = ["anywrap"]
    for info in pkgutil.walk_packages(anywrap.__path__, "anywrap."):
        if info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", modules())
def test_docstring_examples(name):
    for prefix, package in NEEDS.items():
        if name.startswith(prefix):
            pytest.importorskip(package)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
    # A module that gains or loses its examples must update NO_EXAMPLES.
    assert (result.attempted == 0) == (name in NO_EXAMPLES), (name, result.attempted)


def test_public_classes_have_examples():
    """Each public wrapper documents itself with a runnable example."""
    import anywrap.vector

    for ns in (anywrap, anywrap.vector):
        for name in ns.__all__:
            obj = getattr(ns, name)
            if isinstance(obj, type):
                assert obj.__doc__ and ">>>" in obj.__doc__, f"{ns.__name__}.{name}"
