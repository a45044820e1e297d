"""``workbook demo``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="the whole pipeline on four sample submissions",
        description="Run build, release, autograde, feedback and export on four "
        "bundled sample submissions (complete, blank, partial, buggy) in a temporary "
        "course, and print the grade table. The course is removed afterwards unless "
        "--keep DIR is given.",
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="build the course in DIR (new or empty) and keep it")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook demo`` with the parsed ``args``; return the exit code."""
    from workbook.authoring.demo import demo

    if args.keep:
        demo(args.keep.resolve(), console)
        console.print(f"the course is kept in {args.keep.resolve()}")
        return 0
    with tempfile.TemporaryDirectory(prefix="workbook-demo-") as scratch:
        demo(Path(scratch) / "course", console)
    console.print("the temporary course is removed; `workbook demo --keep DIR` keeps it")
    return 0
