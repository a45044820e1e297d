"""``workbook lms push``: its arguments, then a call into the work (``workbook.lms.push``)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape

from workbook.cli.common import add_course_option, print_by_kind


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook lms`` and its ``push``."""
    parser = subparsers.add_parser(
        "lms",
        help="grades to the learning management system (LTI 1.3)",
        description="Talk to the course's LMS through LTI Advantage, with the tool registration "
        "of nbgrader_config.py (c.LmsTool; docs: instructors/lms.md).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    push = actions.add_parser(
        "push",
        help="post each student's scores to the LMS's line items",
        description="Post each student's scores through Assignment and Grade Services: one line "
        "item per lab notebook (created when missing, found again by its resource id), the late "
        "penalty applied as `workbook export` applies it, gradingProgress Pending while a written "
        "answer is still to grade by hand. A score the LMS already holds is not posted again; a "
        "student the LMS does not list is named and skipped; a refused post names the student, "
        "the line item and the HTTP status, and the others are still posted. Nothing is written "
        "to the gradebook.",
    )
    add_course_option(push)
    which = push.add_mutually_exclusive_group()
    which.add_argument("--lab", type=int, metavar="N", help="only lab N's line item")
    which.add_argument("--total", action="store_true", help="one line item for the assignment's total instead")
    push.add_argument(
        "--dry-run", action="store_true", help="print what would be posted; contact nothing, post nothing"
    )
    push.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook lms push`` with the parsed ``args``; return the exit code (1 when a score was not posted)."""
    from workbook.course.layout import Course
    from workbook.lms.push import push
    from workbook.lms.scores import describe, planned_scores

    course = Course(args.course)
    if args.dry_run:
        plan = planned_scores(course, args.lab, args.total)
        for planned in plan:
            console.print(f"would post {escape(describe(planned))}", highlight=False)
        console.print(f"dry run: {sum(p.score is not None for p in plan)} scores, nothing contacted", highlight=False)
        return 0
    from workbook.lms.ags import GradeService
    from workbook.lms.registration import tool_registration

    report = push(course, GradeService(tool_registration(course)), args.lab, args.total)
    print_by_kind(
        console,
        (
            ("created", report.created, "green"),
            ("posted", report.posted, ""),
            ("skipped", report.skipped, "yellow"),
            ("unknown student", report.unknown, "yellow"),
            ("failed", report.failed, "red"),
        ),
    )
    console.print(
        f"{len(report.posted)} scores posted, {len(report.unchanged)} unchanged, {len(report.failed)} failed, "
        f"{len(report.unknown)} students unknown to the LMS",
        highlight=False,
    )
    return 0 if report.complete else 1
