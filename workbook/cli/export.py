"""``workbook export``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import Course


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook export``."""
    parser = subparsers.add_parser(
        "export",
        help="grades as CSV with one column per lab",
        description="Write the gradebook's grades as CSV: one row per student (sorted "
        "by id) with nbgrader's columns (names, timestamp, score, max_score, ...) and "
        "one score column per lab notebook, extra credit in columns of its own, then "
        "ungraded_answers (hand-graded answers not graded yet, which count 0) and "
        "grading_notes (what happened while grading). Late penalties are recomputed from "
        "the current scores first.",
    )
    add_course_option(parser)
    parser.add_argument(
        "--to", type=Path, help="the CSV file to write (default: COURSE/grades.csv, COURSE/grades-FORMAT.csv)"
    )
    parser.add_argument(
        "--format",
        choices=("csv", "canvas", "moodle"),
        default="csv",
        help="csv: the workbook's columns (default); canvas, moodle: the file that LMS's gradebook imports, "
        "one column per lab, scores after the late penalty (needs --roster)",
    )
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the LMS's own roster export (Canvas: its gradebook export; Moodle: its grade export), "
        "which maps each student to the LMS",
    )
    parser.add_argument(
        "--roster-id",
        metavar="COLUMN",
        help="the roster column holding the nbgrader student id (default: Canvas 'SIS User ID', Moodle 'ID number')",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook export`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.export import export
    from workbook.pipeline.grades import course_grades
    from workbook.pipeline.notes import print_closing_notes

    course = Course(args.course)
    if args.format != "csv":
        return run_lms_file(args, console, course)
    console.print(f"wrote {export(course, args.to)}")
    grades = course_grades(course)
    print_closing_notes(
        console,
        course,
        grades,
        "the CSV counts them as 0 (column ungraded_answers)",
        "and run `workbook export` again",
        review=False,
    )
    return 0


def run_lms_file(args: argparse.Namespace, console: Console, course: Course) -> int:
    """``workbook export --format canvas|moodle``: write the file, name who is not in the roster; 1 if anyone."""
    from rich.markup import escape

    from workbook.course.late import refresh_late_penalties
    from workbook.errors import CourseError
    from workbook.lms.gradebook_files import write_lms_file
    from workbook.pipeline.grades import course_grades
    from workbook.pipeline.notes import print_closing_notes

    if args.roster is None:
        raise CourseError(f"--format {args.format} needs --roster FILE, the LMS's own roster export")
    refresh_late_penalties(course)  # as the CSV export does, so that the closing notes say the penalties it applied
    written = write_lms_file(course, args.format, args.roster, args.to, args.roster_id)
    console.print(f"wrote {escape(str(written.path))} ({len(written.written)} students)", highlight=False)
    for student in written.missing:
        console.print(f"[yellow]not in the roster, not written: {escape(student)}[/]", highlight=False)
    for score in written.not_graded:
        console.print(f"[yellow]left empty (not autograded yet): {escape(score)}[/]", highlight=False)
    print_closing_notes(
        console,
        course,
        course_grades(course),
        "the file counts them as 0",
        f"and run `workbook export --format {args.format}` again",
        review=False,
    )
    return 1 if written.missing else 0
