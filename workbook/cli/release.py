"""``workbook release``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook release``."""
    parser = subparsers.add_parser(
        "release",
        help="generate the student version and check it leaks nothing",
        description="Run nbgrader's generate_assignment: write the student version of "
        "the labs to release/compaction_labs/ (solutions and hidden tests removed) and "
        "record the assignment in the gradebook, then check that no hidden-test or "
        "solution line got out and that the package is the starter. This does not hand "
        "anything to students: on a hub, publish it with the formgrader's Release "
        "button (nbgrader release_assignment); without one, students use "
        "`workbook practice`.",
    )
    add_course_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook release`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.release import HANDING_OUT, release

    course = Course(args.course)
    files = release(course)
    console.print(
        f"released {len(files)} files to {course.release}; checked: no hidden test, no solution, "
        f"the package is the starter"
    )
    console.print(HANDING_OUT, highlight=False)
    return 0
