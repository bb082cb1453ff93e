"""The core's size as the lean-core issue counts it: every line (docstrings and blanks
included) of ``src/anywrap``'s Python files, without the report page (``record/``), the
command line (``demo.py``, ``cli.py``) and the Brax training glue
(``functional/brax_training*.py``); the benchmarks live outside the package already.

The catalogue of Gymnasium's wrappers (issue 33) was meant to build on the lean core
and landed beside it; its share is counted too (:data:`CATALOGUE`, whole modules and
named top-level definitions, docstrings and decorators included), so that the count can
be read against the issue's target as filed.

    python benchmarks/core_lines.py            # total, then lines by folder and the catalogue
    python benchmarks/core_lines.py --json     # the same as JSON
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "anywrap"


CATALOGUE: dict[str, tuple[str, ...]] = {
    # whole modules (an empty tuple)
    "shell/noise.py": (),
    "transforms/atari_preprocessing.py": (),
    "transforms/discretize.py": (),
    "transforms/filter_observation.py": (),
    "transforms/noise.py": (),
    "transforms/vectorize.py": (),
    "wrappers/atari_preprocessing.py": (),
    "wrappers/rendering.py": (),
    # the catalogue's definitions in modules shared with the wrappers before it
    "functional/episodes.py": ("RepeatAction",),
    "functional/maps.py": (
        "TransformAction",
        "DiscretizeAction",
        "FilterObservation",
        "DiscretizeObservation",
    ),
    "functional/noise.py": ("NoiseState", "NoiseMap", "AddWhiteNoise", "ObstructView"),
    "vector/common.py": ("DictInfoToList", "_Missing", "_Base", "RecordVideo", "HumanRendering"),
    "vector/vectorize.py": (
        "Vectorized",
        "VectorizeTransformObservation",
        "FilterObservation",
        "TransformAction",
        "VectorizeTransformAction",
        "VectorizeTransformReward",
    ),
    "wrappers/common.py": (
        "host_copy",
        "HostView",
        "OrderEnforcing",
        "Autoreset",
        "PassiveEnvChecker",
    ),
    "wrappers/stateful_action.py": ("check_repeats", "RepeatAction"),
    "wrappers/transform_action.py": ("TransformAction", "DiscretizeAction"),
    "wrappers/transform_observation.py": (
        "SpacesOnly",
        "filter_map",
        "FilterObservation",
        "AddRenderObservation",
        "checked_bins",
        "discrete_space",
        "DiscretizeObservation",
    ),
}
"""Issue 33's wrappers (Gymnasium's names the core lacked), by module: the top-level
names that are theirs, or ``()`` for a module that is all theirs."""


def catalogue_lines(rel: str, text: str) -> int:
    """The lines of ``text`` (the module ``rel``) that :data:`CATALOGUE` attributes."""
    names = CATALOGUE.get(rel)
    if names is None:
        return 0
    if not names:
        return len(text.splitlines())
    n, found = 0, set()
    for node in ast.parse(text).body:
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        own = getattr(node, "name", None) or next(
            (t.id for t in targets if isinstance(t, ast.Name)), None
        )
        if own in names:
            found.add(own)
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            n += (node.end_lineno or node.lineno) - first + 1
    if missing := sorted(set(names) - found):  # renamed or moved: the table is stale
        raise ValueError(f"core_lines: {rel} has no top-level {missing}; update CATALOGUE")
    return n


def counted(rel: Path) -> bool:
    """Whether a file (relative to the package) is part of the core."""
    return not (
        rel.parts[0] == "record"
        or rel.as_posix() in ("demo.py", "cli.py")
        or rel.name.startswith("brax_training")
    )


def core_lines(root: Path = SRC) -> dict[str, int]:
    """Lines by folder (``top`` for the package's own modules), ``total``, and of those
    the ``catalogue``'s."""
    by: collections.Counter[str] = collections.Counter()
    catalogue = 0
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if counted(rel):
            folder = rel.parts[0] if len(rel.parts) > 1 else "top"
            text = path.read_text(encoding="utf-8")
            by[folder] += len(text.splitlines())
            catalogue += catalogue_lines(rel.as_posix(), text)
    return {**dict(sorted(by.items())), "total": sum(by.values()), "catalogue": catalogue}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    counts = core_lines()
    if parser.parse_args(argv).json:
        print(json.dumps(counts))
        return
    total, catalogue = counts.pop("total"), counts.pop("catalogue")
    print(f"core: {total} lines")
    for folder, n in counts.items():
        print(f"  {folder:<12}{n:>6}")
    print(f"of which the catalogue (issue 33): {catalogue}; without it: {total - catalogue}")


if __name__ == "__main__":
    main()
