"""``workbook autograde``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import DEFAULT_CELL_TIMEOUT, Course
from workbook.grading.sandbox import MODES
from workbook.pipeline.engine import DEFAULT_SUBMISSION_TIMEOUT, SCHEDULER_VARIABLE, default_jobs


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook autograde``."""
    parser = subparsers.add_parser(
        "autograde",
        help="grade the submissions, in parallel, with a summary table",
        description="Autograde submitted/STUDENT/compaction_labs/ with nbgrader, each "
        "notebook on its own, and score every lab with the judge; then print each "
        "student's autograded points per lab, the hand-graded points (pending until "
        "graded in nbgrader's formgrader), the total and a status naming whatever "
        "went wrong (a notebook that crashed, a copied, deleted or edited cell, a "
        "renamed or missing notebook, a malformed timestamp). A submission that hangs "
        "or crashes its grading fails alone; its log is logs/autograde/STUDENT.log. Each "
        "student is a task on Dask (a local cluster of --jobs processes, or the cluster at "
        "--scheduler), and only this command writes the gradebook; a submission already "
        "recorded is skipped unless --force.",
    )
    parser.add_argument("students", nargs="*", metavar="STUDENT", help="students to grade (default: all submitted)")
    add_course_option(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"students graded at the same time on this machine (default: the number of cores, {default_jobs()})",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=f"grade on the running Dask cluster at ADDRESS, e.g. tcp://grader1:8786 (default: ${SCHEDULER_VARIABLE} "
        "if set, else a local cluster of --jobs processes)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="grade again the submissions an earlier run already recorded (default: skip them)",
    )
    parser.add_argument(
        "--timeout",
        type=int,
        default=None,
        help="seconds per cell before it is interrupted (default: the course's Execute.timeout, "
        f"{DEFAULT_CELL_TIMEOUT} as built, the limit the notebooks state and Validate uses)",
    )
    parser.add_argument(
        "--submission-timeout",
        type=float,
        default=DEFAULT_SUBMISSION_TIMEOUT,
        help=f"seconds per student before its grading is killed (default {DEFAULT_SUBMISSION_TIMEOUT})",
    )
    parser.add_argument(
        "--isolation",
        choices=MODES,
        help="where student code runs. Default: the course config's "
        "SandboxKernelManager.isolation, which `workbook build` sets to auto. required: in a "
        "bubblewrap sandbox, or not graded at all; auto: in the sandbox where this machine has one, "
        "else as this user; off: as this user, never sandboxed",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook autograde`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.autograde import grade_with_progress

    outcomes = grade_with_progress(
        Course(args.course),
        args.students,
        args.jobs,
        args.timeout,
        console,
        args.submission_timeout,
        args.isolation,
        scheduler=args.scheduler,
        force=args.force,
    )
    return 0 if all(outcome.graded for outcome in outcomes) else 1
