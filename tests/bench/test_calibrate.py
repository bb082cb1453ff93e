"""The calibration that re-derives the JAX backend's machine-specific constants runs
and reports what it measured beside what the backend chooses."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from anywrap.backends.jax import row_group
from benchmarks.suite import calibrate


def test_host_copy_crossover_reports_every_size() -> None:
    res = calibrate.host_copy_crossover(sizes=(1024, 1 << 16), reps=2)
    assert [r["bytes"] for r in res["rows"]] == [1024, 1 << 16]
    assert all(r["copy_s"] > 0 and r["dlpack_s"] > 0 for r in res["rows"])
    assert res["crossover_bytes"] in (None, 1024, 1 << 16)


def test_row_group_table_times_valid_groupings_and_names_the_choice() -> None:
    res = calibrate.row_group_table(shapes=((256, 3), (64, 300)), groups=(1, 2, 4, 32), reps=2)
    first, second = res["rows"]
    assert set(first["seconds"]) == {1, 2, 4, 32}  # 256 / 32 = 8 groups: still allowed
    assert set(second["seconds"]) == {1, 2, 4}  # 64 / 32 = 2 groups: too few
    assert first["chosen"] == row_group(256, 3) and second["chosen"] == 1
    assert first["best"] in first["seconds"]


def test_main_prints_both_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert calibrate.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "DLPack is faster from" in out and "row_group chooses" in out
