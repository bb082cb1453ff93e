"""The skip guard (``skip_guard.py``): with ``CI`` set, a skipped test fails the run.

Each case runs a tiny suite in a fresh pytest process that registers the
guard as ``tests/conftest.py`` does, with and without ``CI``, with and
without pytest-xdist.
"""

from __future__ import annotations

import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

CONFTEST = """
from skip_guard import SkipGuard

def pytest_configure(config):
    config.pluginmanager.register(SkipGuard(), "anywrap-skip-guard")
"""

ONE_SKIP = """
import pytest

def test_passes():
    assert 1 + 1 == 2

def test_needs_a_missing_library():
    pytest.importorskip("surely_not_an_installed_module")
"""

NO_SKIP = """
import pytest

def test_passes():
    assert True

@pytest.mark.xfail(strict=True, reason="a known bug, not a skip")
def test_known_bug():
    assert False
"""

MODULE_SKIP = """
import pytest

pytest.importorskip("surely_not_an_installed_module")

def test_never_collected():
    assert True
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    path = os.pathsep.join(p for p in (HERE, os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.delenv("CI", raising=False)
    return pytester


def run(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    return suite.runpytest_subprocess("-p", "no:cacheprovider", "-rs", *args)


def test_without_ci_a_skip_passes(suite):
    suite.makepyfile(test_tiny=ONE_SKIP)
    result = run(suite)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    assert "skipped tests fail the run" not in result.stdout.str()


def test_with_ci_a_skip_fails_and_is_named(suite, monkeypatch):
    suite.makepyfile(test_tiny=ONE_SKIP)
    monkeypatch.setenv("CI", "1")
    result = run(suite)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*skipped tests fail the run when CI is set*",
            "SKIPPED test_tiny.py::test_needs_a_missing_library: *surely_not_an_installed_module*",
        ]
    )


def test_with_ci_an_expected_failure_is_not_a_skip(suite, monkeypatch):
    suite.makepyfile(test_tiny=NO_SKIP)
    monkeypatch.setenv("CI", "1")
    result = run(suite)
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_with_ci_under_xdist_a_skipped_module_fails(suite, monkeypatch):
    """Two workers; one module skipped whole at collection, one test skipped in a run."""
    suite.makepyfile(test_whole=MODULE_SKIP, test_tiny=ONE_SKIP)
    monkeypatch.setenv("CI", "1")
    result = run(suite, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "skipped tests fail the run when CI is set" in out
    assert "test_whole.py" in out and "test_needs_a_missing_library" in out
