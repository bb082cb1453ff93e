"""Rendering of a suite run: the stdout table, the JSON file and the throughput plot."""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["format_table", "write_json", "write_plot"]


def _num(x: Any, fmt: str) -> str:
    if isinstance(x, (int, float)) and math.isfinite(x):
        return format(x, fmt)
    return "-"


def format_table(report: dict[str, Any]) -> str:
    """The human-readable table of a run: one block per benchmark, ratios beside times."""
    lines = []
    head = f"    {'case':<40} {'us/step':>11} {'env steps/s':>14} {'x ref':>7}  {'ref':<12} notes"
    for bid, res in report["benchmarks"].items():
        lines.append(f"{bid}  {res['title']}")
        if res["status"] != "ok":
            lines.append(f"    {res['status'].upper()}: {res['reason']}")
            lines.append("")
            continue
        params = ", ".join(f"{k}={v}" for k, v in res["params"].items())
        if params:
            lines.append(f"    ({params})")
        lines.append(head)
        for r in res["rows"]:
            if "error" in r:
                lines.append(f"    {r['label']:<40} {'FAILED':>11}  {r['error']}")
                continue
            sec, whole = r.get("seconds_per_step"), r.get("seconds")
            if sec is None and whole is None:
                lines.append(f"    {r['label']:<40} {r.get('extra', '')}".rstrip())
                continue
            time_text = _num(sec * 1e6 if sec else None, "11.2f")
            if whole is not None:  # a whole run (B9), in seconds
                time_text = f"{_num(whole, '9.2f')} s"
            lines.append(
                f"    {r['label']:<40} {time_text} "
                f"{_num(r.get('env_steps_per_s'), '14,.0f')} {_num(r.get('ratio'), '7.2f')}  "
                f"{r.get('ratio_to', '') if r.get('ratio') is not None else '':<12} "
                f"{r.get('extra', '')}".rstrip()
            )
        for v in res["verdicts"]:
            lines.append(f"    => {v}")
        for n in res["notes"]:
            lines.append(f"    note: {n}")
        lines.append("")
    lines.append(f"wall time: {report['wall_s']:.1f} s")
    return "\n".join(lines)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if hasattr(x, "item") and getattr(x, "ndim", 1) == 0:  # a NumPy / JAX scalar
        return _jsonable(x.item())
    return str(x)


def write_json(report: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``report`` as JSON (NaN and inf become null), atomically: write, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(_jsonable(report), f, indent=2, allow_nan=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_plot(report: dict[str, Any], path: str | os.PathLike[str]) -> Path | None:
    """Plot env steps/s against the number of envs for B3 and B4 (PNG, Agg backend).

    Returns the path written, or None when neither benchmark has a series.
    """
    panels = [
        (bid, res)
        for bid, res in report["benchmarks"].items()
        if bid in ("B3", "B4") and res["status"] == "ok" and res["series"]
    ]
    if not panels:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5), squeeze=False)
    for ax, (bid, res) in zip(axes[0], panels):
        for name, s in res["series"].items():
            ax.plot(s["num_envs"], s["env_steps_per_s"], marker="o", label=name)
        ax.set_xscale("log", base=2)
        sizes = sorted({n for s in res["series"].values() for n in s["num_envs"]})
        ax.set_xticks(sizes, [str(n) for n in sizes])
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_xlabel("number of envs")
        ax.set_ylabel("env steps / s")
        ax.set_title(f"{bid}: {res['title']}", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"anywrap benchmarks, device={report['config']['device']}", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
