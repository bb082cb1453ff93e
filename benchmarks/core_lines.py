"""The core's size as the lean-core issue counts it: every line (docstrings and blanks
included) of ``src/anywrap``'s Python files, without the report page (``record/``), the
command line (``demo.py``, ``cli.py``) and the Brax training glue
(``functional/brax_training*.py``); the benchmarks live outside the package already.

    python benchmarks/core_lines.py            # total, then lines by folder
    python benchmarks/core_lines.py --json     # the same as JSON
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "anywrap"


def counted(rel: Path) -> bool:
    """Whether a file (relative to the package) is part of the core."""
    return not (
        rel.parts[0] == "record"
        or rel.as_posix() in ("demo.py", "cli.py")
        or rel.name.startswith("brax_training")
    )


def core_lines(root: Path = SRC) -> dict[str, int]:
    """Lines by folder (``top`` for the package's own modules), and ``total``."""
    by: collections.Counter[str] = collections.Counter()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if counted(rel):
            folder = rel.parts[0] if len(rel.parts) > 1 else "top"
            by[folder] += len(path.read_text(encoding="utf-8").splitlines())
    return {**dict(sorted(by.items())), "total": sum(by.values())}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    counts = core_lines()
    if parser.parse_args(argv).json:
        print(json.dumps(counts))
        return
    print(f"core: {counts.pop('total')} lines")
    for folder, n in counts.items():
        print(f"  {folder:<12}{n:>6}")


if __name__ == "__main__":
    main()
