"""``workbook report``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook report``."""
    parser = subparsers.add_parser(
        "report",
        help="the cohort report: scores per lab, pass rate per case",
        description="Write COURSE/report/index.html (per lab a histogram and mean; per "
        "case its pass rate and discrimination, with flags; the hidden cases failed "
        "most, with their hints; students marked for review; late submissions) and "
        "COURSE/report/cases.csv (student x case, 1/0), from the judge's results; and the pairs of "
        "students whose code or answers match, each with a side-by-side page (see `workbook similarity`).",
    )
    add_course_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook report`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.report import write_report

    page = write_report(Course(args.course))
    console.print(f"report: {page} (and {page.with_name('cases.csv')})")
    return 0
