"""``workbook intake ARCHIVE.zip``: its arguments, then a call into the work (``workbook.course.lms_archive``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from workbook.cli.common import add_course_option, print_by_kind


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook intake``."""
    parser = subparsers.add_parser(
        "intake",
        help="submissions from an LMS bulk download (Canvas, Moodle) into submitted/",
        description="Lay the submissions of an LMS bulk download out as submitted/STUDENT/compaction_labs/ "
        "with timestamp.txt from the LMS's submission time: Canvas's flat NAME_USERID_FILEID_ORIGINAL files "
        "or Moodle's folder per participant, loose notebooks and lab modules or a zip of the assignment "
        "folder. Symlinks, special files, paths escaping the folder and oversized files refuse a submission "
        "by name; checkpoints, __pycache__ and editor files are dropped and noted; of a student's two "
        "submissions the latest is kept; a student the roster lacks is named, never guessed; nothing in "
        "submitted/ is replaced without --force.",
    )
    add_course_option(parser)
    parser.add_argument("archive", type=Path, metavar="ARCHIVE.zip", help="the LMS's bulk download")
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the LMS's roster export (Canvas: its gradebook export; Moodle: its grade export); without it the "
        "student id is the LMS's own user (participant) id",
    )
    parser.add_argument(
        "--roster-id",
        metavar="COLUMN",
        help="the roster column holding the nbgrader student id (default: Canvas 'SIS User ID', Moodle 'ID number')",
    )
    parser.add_argument("--force", action="store_true", help="replace submissions already in submitted/")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook intake`` with the parsed ``args``; return the exit code (1 when a submission was not written)."""
    from workbook.course.layout import Course
    from workbook.course.lms_archive import intake_archive

    report = intake_archive(Course(args.course), args.archive, args.roster, args.roster_id, args.force)
    console.print(f"{escape(str(args.archive))}: a {report.layout.capitalize()} bulk download", highlight=False)
    print_by_kind(
        console,
        (
            ("written", report.written, ""),
            ("latest kept", report.superseded, "yellow"),
            ("dropped", report.dropped, "yellow"),
            ("refused", report.refused, "red"),
            ("unknown student", report.unknown, "red"),
            ("kept", report.kept, "yellow"),
            ("ignored", report.ignored, "yellow"),
        ),
    )
    console.print(f"{len(report.written)} submissions written", highlight=False)
    return 0 if report.complete else 1
