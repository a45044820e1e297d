"""``workbook similarity``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course
from workbook.manifest import LABS


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook similarity``."""
    from workbook.similarity.settings import THRESHOLD

    parser = subparsers.add_parser(
        "similarity",
        help="pairs of students whose lab code or written answers match",
        description="Compare, lab by lab, every pair of students' code (their lab regions and the modules "
        "of their own, the starter and provided code never counting) and written answers, with copydetect's "
        "fingerprints; print each pair at or above the threshold: the two students, the lab, the share of "
        "each side that matches and the matching lines. Changes no grade: a match is a reason to look, "
        "not a verdict. `workbook report` shows the same pairs side by side.",
    )
    add_course_option(parser)
    parser.add_argument("--lab", type=int, choices=[lab.number for lab in LABS], help="one lab only")
    parser.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help=f"the score (larger share matched, 0 to 1) at which a pair is shown (default: {THRESHOLD})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook similarity`` with the parsed ``args``; return the exit code (0, with or without pairs)."""
    from workbook.similarity.table import print_findings

    print_findings(console, Course(args.course), None if args.lab is None else [args.lab], args.threshold)
    return 0
