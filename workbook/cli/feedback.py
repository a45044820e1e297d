"""``workbook feedback``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook feedback``."""
    parser = subparsers.add_parser(
        "feedback",
        help="HTML feedback per student from the judge's results",
        description="Generate nbgrader's HTML feedback for every autograded student "
        "(feedback/STUDENT/compaction_labs/*.html), each test cell showing the judge's "
        "results: visible cases with what was called, what came back and what was "
        "expected; hidden cases by name, with a hint when they failed. A page that cannot "
        "be made clean is withheld for that student alone. Run it after the hand-graded "
        "answers are graded, or again once they are.",
    )
    add_course_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook feedback`` with the parsed ``args``; return the exit code (1 if any page was withheld)."""
    from workbook.pipeline.feedback import feedback
    from workbook.pipeline.grades import course_grades
    from workbook.pipeline.notes import print_closing_notes

    course = Course(args.course)
    report = feedback(course)
    for student, files in report.pages.items():
        console.print(
            f"{student}: {len(files)} pages in {course.feedback(student)}, overview {report.overviews[student]}",
            highlight=False,
        )
    for student, why in report.withheld.items():
        console.print(f"[red]{student}: feedback withheld[/] ({why})", highlight=False)
    console.print("checked: every test cell shows the judge's results; no hidden case's call on any page")
    grades = course_grades(course)
    print_closing_notes(
        console, course, grades, "these pages show them as 0", "and run `workbook feedback` again", review=False
    )
    return 1 if report.withheld else 0
