"""No silent skips: with the environment variable ``CI`` set, a skipped test fails the run.

CI installs every optional library, so a test that skips there (an
``importorskip`` whose package went missing, a whole module skipped at
collection) hides a gap behind a green run. The guard counts every skip,
collection skips included, and expected failures apart (``xfail`` reports
look like skips). At the end of a CI session it prints the skipped tests
with their reasons and turns a passing exit status into a failing one.
Under pytest-xdist the workers' reports reach the controller's hooks, so it
works with ``-n``; the workers themselves leave the status alone.

``tests/conftest.py`` registers it; outside CI it changes nothing.
"""

from __future__ import annotations

import os

import pytest


def _reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


class SkipGuard:
    """Collects the session's skips; fails a CI session that has any."""

    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []

    @staticmethod
    def active() -> bool:
        return bool(os.environ.get("CI"))

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            entry = (report.nodeid or "<collection>", _reason(report))
            if entry not in self.skipped:
                self.skipped.append(entry)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workerinput"):  # an xdist worker: the controller decides
            return
        ok = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
        if self.active() and self.skipped and session.exitstatus in ok:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if hasattr(terminalreporter.config, "workerinput"):
            return
        if not (self.active() and self.skipped):
            return
        terminalreporter.section("skipped tests fail the run when CI is set", sep="=", red=True)
        for nodeid, reason in self.skipped:
            terminalreporter.line(f"SKIPPED {nodeid}: {reason}", red=True)
        terminalreporter.line(
            f"{len(self.skipped)} skipped: CI installs every optional library, "
            "so a skip there hides a gap (exit status set to failure)"
        )
