"""``workbook collect``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import ACCEPT_FLAG, QUARANTINE, Course
from workbook.errors import CourseError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook collect``."""
    parser = subparsers.add_parser(
        "collect",
        help="collect submissions from the exchange, forged ones quarantined",
        description="Run nbgrader's collect on the exchange (as the formgrader's "
        "Collect button): each student's newest submission goes to submitted/. A "
        "submission whose files are not all owned by the student it names, or that "
        f"holds a link, is moved to EXCHANGE/COURSE/{QUARANTINE}/ and named in the "
        "output; the student's newest genuine one is collected. Refuses when the "
        "exchange cannot tell owners apart (one uid for every user).",
    )
    add_course_option(parser)
    parser.add_argument(
        ACCEPT_FLAG,
        action="store_true",
        help="where every user has the same uid: collect under the student names typed at "
        "submission, unchecked (anyone can submit as anyone)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook collect`` with the parsed ``args``; return the exit code (1, with nbgrader's log, on refusal).

    nbgrader's log is printed as plain text: it holds paths and brackets that are not markup.
    """
    from workbook.pipeline.collect import collect

    try:
        log = collect(Course(args.course), accept_claimed_names=args.accept_claimed_names)
    except CourseError as error:
        console.print(f"workbook collect: {error}", style="red", markup=False, highlight=False, soft_wrap=True)
        return 1
    console.print(log.rstrip(), markup=False, highlight=False, soft_wrap=True)
    return 0
