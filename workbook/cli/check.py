"""``workbook check``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbook.student.check import CheckReport


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook check``."""
    parser = subparsers.add_parser(
        "check",
        help="run the notebooks' visible checks on your package",
        description="Run a lab's visible checks (all labs' without LAB), the same "
        "ones as the notebook's test cells, on the compaction_lab/ package of your "
        "folder, and print one line per lab; without LAB, then the next thing to do. "
        "The grader also runs hidden tests. Exit status 0 when every chosen lab passes.",
    )
    parser.add_argument("lab", type=int, nargs="?", metavar="LAB", help="lab number 1 to 5 (default: all)")
    parser.add_argument(
        "--workspace", type=Path, default=Path("."), help="the folder holding your compaction_lab/ (default: .)"
    )
    parser.add_argument(
        "--language",
        choices=("en", "zh", "vi"),
        help="the lines' language: en, zh or vi (default: your workspace's, from its release)",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="check again after every save of a .py file in compaction_lab/, until Ctrl-C",
    )
    parser.set_defaults(run=run)


def show_report(console, report: CheckReport, overview: bool) -> None:
    """Print each lab's line, green when it passes, red otherwise; then, for an ``overview`` (every lab), the
    next thing to do."""
    for line in report.lines:
        console.print(
            line["summary"], style="green" if line["passed"] else "red", markup=False, highlight=False, soft_wrap=True
        )
    if overview and report.next_step:
        console.print(report.next_step, style="bold", markup=False, highlight=False, soft_wrap=True)


def run(args: argparse.Namespace, console) -> int:
    """``workbook check``: the lines (``show_report``) and the exit code; with ``--watch``, every run's lines
    under a rule naming the files saved, and exit code 0 on Ctrl-C."""
    from workbook.student.check import run_checks

    overview = args.lab is None
    if args.watch:
        from rich.text import Text

        from workbook.student.watch import watch_checks

        def show(report: CheckReport, saved: list[str]) -> None:
            if saved:
                console.rule(Text(", ".join(saved)), style="dim")
            show_report(console, report, overview)
            console.file.flush()  # a pipe (tee, a log) shows each run as it ends

        watch_checks(show, args.workspace, args.lab, args.language)
        return 0
    report = run_checks(args.workspace, args.lab, language=args.language)
    show_report(console, report, overview)
    return 0 if report.lines and all(line["passed"] for line in report.lines) else 1
