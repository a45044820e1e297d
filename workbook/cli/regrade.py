"""``workbook regrade``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course
from workbook.grading.sandbox import MODES
from workbook.pipeline.engine import SCHEDULER_VARIABLE, default_jobs


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook regrade``."""
    parser = subparsers.add_parser(
        "regrade",
        help="judge the autograded submissions again on the current cases, without running notebooks",
        description="Judge each autograded student's submitted lab modules again with the course's "
        "current cases (e.g. after editing grading/cases/<module>/hidden.py), with the "
        "generated variants each lab was graded with; no notebook is executed. The judge's "
        "scores, review marks and case results are rewritten, hand grades kept; then the "
        "grade table, with the cells each student's regrade changed. Run `workbook feedback` "
        "after it for pages that show the new results.",
    )
    parser.add_argument("students", nargs="*", metavar="STUDENT", help="students to regrade (default: all autograded)")
    add_course_option(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"students judged at the same time on this machine (default: the number of cores, {default_jobs()})",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"judge on the running Dask cluster at ADDRESS (default: ${SCHEDULER_VARIABLE} if set, else a local "
        "cluster of --jobs processes)",
    )
    parser.add_argument("--isolation", choices=MODES, help="where student code runs (as for `workbook autograde`)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook regrade`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.regrade import regrade_with_table

    failed = regrade_with_table(Course(args.course), args.students, args.jobs, args.scheduler, args.isolation, console)
    return 1 if failed else 0
