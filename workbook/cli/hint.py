"""``workbook hint``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook hint``."""
    parser = subparsers.add_parser(
        "hint",
        help="the instructor's hint for a failing visible check",
        description="Run a lab's visible checks on the compaction_lab/ package of your folder and print the "
        "instructor's one-line hint for its first failing check (or for CASE, a visible check's name, "
        "without running anything). Exit status 0 when a hint is printed or every check passes.",
    )
    parser.add_argument("lab", type=int, metavar="LAB", help="lab number 1 to 5")
    parser.add_argument("case", nargs="?", metavar="CASE", help="a visible check's name, e.g. window_30_keeps_one")
    parser.add_argument(
        "--workspace", type=Path, default=Path("."), help="the folder holding your compaction_lab/ (default: .)"
    )
    parser.add_argument(
        "--language",
        choices=("en", "zh", "vi"),
        help="the hint's language: en, zh or vi (default: your workspace's, from its release)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console) -> int:
    """``workbook hint``: the lab's line when its checks ran (green or red), then ``CASE: hint``; the exit code."""
    from workbook.student.hint import find_hint

    found = find_hint(args.workspace, args.lab, args.case, args.language)
    if found.summary:
        style = "green" if found.passed else "red"
        console.print(found.summary, style=style, markup=False, highlight=False, soft_wrap=True)
    if found.case:
        console.print(f"{found.case}: {found.hint}", style="bold", markup=False, highlight=False, soft_wrap=True)
    return 0 if found.case or found.passed else 1
