"""``workbook grades``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import ASSIGNMENT, Course


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook grades``."""
    parser = subparsers.add_parser(
        "grades",
        help="the grade table of every submission, without grading",
        description="Print the gradebook's grades of every submission: per lab the "
        "autograded points, the hand-graded points (?/N while N points await a "
        "grader in nbgrader's formgrader) and the total, with a note naming who "
        "still has answers to grade, and what happened while grading. Nothing is "
        "graded; late penalties are recomputed from the current scores, hand-graded "
        "ones included.",
    )
    add_course_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook grades`` with the parsed ``args``; return the exit code."""
    from workbook.course.late import refresh_late_penalties
    from workbook.course.layout import require_released
    from workbook.grading.results import status_notes
    from workbook.pipeline.grades import grade_table, notebook_names, submitted_grades
    from workbook.pipeline.notes import print_closing_notes

    course = Course(args.course)
    require_released(course)
    refresh_late_penalties(course)
    with course.gradebook() as gradebook:
        grades, notebooks = submitted_grades(gradebook), notebook_names(gradebook)
    notes = {grade.student: "; ".join(status_notes(course, grade.student)) for grade in grades}
    console.print(grade_table(grades, notebooks, notes if any(notes.values()) else None, title=f"grades: {ASSIGNMENT}"))
    print_closing_notes(console, course, grades)
    return 0
