"""The ``anywrap`` command: ``anywrap demo``.

Importing this module imports neither JAX nor PyTorch: the demo imports what it
needs when it runs. The benchmarks are not part of the installed package: from a
checkout, ``make bench`` (or ``python -m benchmarks``) runs them.

Example:
    $ anywrap demo
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``anywrap``, with its ``demo`` subcommand."""
    parser = argparse.ArgumentParser(
        prog="anywrap",
        description="anywrap: Gymnasium wrappers written once, run on any array library.",
        epilog="The benchmarks run from a checkout: make bench (see benchmarks/README.md).",
    )
    sub = parser.add_subparsers(dest="command", metavar="{demo}")
    demo = sub.add_parser("demo", help="run the anywrap demo", add_help=False)
    demo.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the demo")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``anywrap`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:  # everything after ``demo`` belongs to the demo
        from anywrap.demo import main as demo

        return demo(argv[1:])
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
