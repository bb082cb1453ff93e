"""Run one page's python blocks in order, in one namespace, and check their output.

``python tests/docs/run_blocks.py PAGE``: exit 0 when every block ran and
printed what the page says (see ``blocks.py``), 1 with the difference
otherwise. Each page runs in a process of its own, so that what a page
registers or configures (a backend, JAX's flags) stays on that page.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blocks import blocks

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def main(page: Path) -> int:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    checker = doctest.OutputChecker()
    for block in blocks(page):
        if block.lang != "python" or block.fragment:
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block.code, block.where, "exec"), namespace)
        except Exception:
            print(f"{block.where} raised:\n{traceback.format_exc()}", file=sys.stderr)
            return 1
        got = out.getvalue()
        if block.output is not None and not checker.check_output(block.output, got, FLAGS):
            print(
                f"{block.where} prints\n{got}where the page says\n{block.output}", file=sys.stderr
            )
            return 1
        print(f"{block.where}: ok")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    sys.exit(main(Path(sys.argv[1]).resolve()))
