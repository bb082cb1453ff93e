"""benchmarks/straight_line.py: the fused eager step against its own torch calls replayed as
straight-line code, over the same inputs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_straight_line_replays_the_eager_routes_calls_and_prints_both(capsys):
    from benchmarks import straight_line

    figures = straight_line.measure(envs=4, rounds=1, calls=2)
    eager, line = figures["eager"], figures["straight-line"]
    # The capture takes the eager routes (not the traced ones, which choose other kernels),
    # so both ways make the same ATen calls: the comparison is of the Python around them.
    assert line["aten_calls"] == eager["aten_calls"] > 50
    assert eager["us_per_call"] > 0 and line["us_per_call"] > 0
    straight_line.main(["--envs", "4", "--rounds", "1", "--calls", "2"])
    text = capsys.readouterr().out
    assert "| eager |" in text and "| straight-line |" in text and "straight-line / eager" in text


def test_straight_line_refuses_a_graph_that_computes_otherwise():
    """The replay stands in for the eager step only if it returns the same arrays: here
    each call scales by a count the call raises, so the check's second call differs."""
    from benchmarks import straight_line

    calls = {"n": 0}

    def fn(x):
        calls["n"] += 1
        return x * calls["n"]

    with pytest.raises(AssertionError, match="does not compute"):
        straight_line.straight_line(fn, (torch.ones(2),))
    calls["n"] = 0
    graph, inputs = straight_line.straight_line(lambda x: x * 2 + 1, (torch.ones(2),))
    assert torch.equal(graph(*inputs)[0], torch.full((2,), 3.0))
