"""B7's module (benchmarks.suite.images_bench) on a tiny run: what it reports is
consistent with its own timings, and the memory figure is the ring's size."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("jax")
pytest.importorskip("torch")
pytest.importorskip("cv2")

from benchmarks.suite import images_bench


def test_a_tiny_b7_run_reports_consistent_figures(tmp_path):
    out = images_bench.run(num_envs=3, steps=2, reps=2, depths=(2, 3))
    json.dumps(out)  # JSON-ready
    p = out["pipeline"]
    assert set(p) == {
        "gymnasium",
        "gymnasium-bare",
        "anywrap-jax",
        "bare-jax",
        "anywrap-torch",
        "bare-torch",
        "anywrap-numpy",
        "bare-numpy",
    }
    for b in ("jax", "torch", "numpy"):
        ratio = p["gymnasium"]["step_ms"] / p[f"anywrap-{b}"]["step_ms"]
        assert out["speedup"][b] == pytest.approx(ratio)
        assert out["met"][b] == (ratio >= images_bench.TARGET)
        assert out["wrapper_ms"][b] == pytest.approx(
            p[f"anywrap-{b}"]["step_ms"] - p[f"bare-{b}"]["step_ms"]
        )
        row = out["depth"][b]
        assert row["stack_ratio_3_over_2"] == pytest.approx(
            row["stack_ms_depth3"] / row["stack_ms_depth2"]
        )
    # each env's ring holds depth frames of 84x84 bytes, plus its share of one padding frame
    for d in (2, 3):
        assert out["bytes_per_env"][str(d)] == pytest.approx(d * 84 * 84 + 84 * 84 / 3)


def test_the_command_line_writes_json(tmp_path, capsys):
    path = tmp_path / "b7.json"
    images_bench.main(
        ["--envs", "2", "--steps", "1", "--reps", "1", "--backends", "numpy", "--json", str(path)]
    )
    assert json.loads(path.read_text())["benchmark"] == "B7"
    assert "Gymnasium's throughput" in capsys.readouterr().out
