"""B6's module (benchmarks.suite.convert_bench): its ratios are its own timings' ratios."""

from __future__ import annotations

import pytest

pytest.importorskip("jax")
pytest.importorskip("torch")

from benchmarks.suite.convert_bench import run


def test_convert_bench_reports_ratios_and_size_check() -> None:
    res = run(sizes={"4KB": 4096, "1MB": 1 << 20}, reps=5, steps=5)
    for label in ("4KB", "1MB"):
        for pair in ("JaxToTorch", "JaxToNumpy"):
            r = res[label][pair]
            assert r["anywrap_us"] > 0 and r["gymnasium_us"] > 0
            assert r["ratio"] == pytest.approx(r["anywrap_us"] / r["gymnasium_us"])
    size = res["size_independent"]
    assert set(size["ratios"]) == {"JaxToTorch", "JaxToNumpy"} and size["tolerance"] == 3.0
    assert isinstance(size["ok"], bool)
