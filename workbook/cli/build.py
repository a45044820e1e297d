"""``workbook build``: its arguments, then a call into the work."""

from __future__ import annotations

import argparse

from rich.console import Console

from workbook.cli.common import add_course_option
from workbook.course.layout import ASSIGNMENT, CONFIG_FILE, DEFAULT_COURSE, DEFAULT_COURSE_ID, LANGUAGES, PACKAGE
from workbook.paths import script


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``workbook build``."""
    parser = subparsers.add_parser(
        "build",
        help="lay out the nbgrader course: config, source/, gradebook",
        description="Lay out the nbgrader course directory: nbgrader_config.py, "
        "source/compaction_labs/ (the five lab notebooks and the starter package "
        "compaction_lab/) and the gradebook (SQLite gradebook.db unless --db-url). "
        "Next step: workbook release.",
    )
    add_course_option(parser)
    parser.add_argument("--db-url", help="gradebook URL, e.g. postgresql://user@host/db (default: SQLite gradebook.db)")
    parser.add_argument(
        "--course-id",
        help=f"nbgrader's course id (default: nbgrader's; {DEFAULT_COURSE_ID!r} with a --db-url other than SQLite)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="rewrite the config, source/ and grading/cases/ of an existing course",
    )
    parser.add_argument(
        "--language",
        default="en",
        choices=sorted(LANGUAGES),
        help="the notebooks' edition: en (English, the default), zh (Simplified Chinese) or vi (Vietnamese)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``workbook build`` with the parsed ``args``; return the exit code."""
    from workbook.pipeline.build import build

    course = build(args.course, db_url=args.db_url, force=args.force, course_id=args.course_id, language=args.language)
    notebooks = len(list(course.source.glob("*.ipynb")))
    console.print(
        f"built {course.root}: {CONFIG_FILE}, source/{ASSIGNMENT}/ ({notebooks} notebooks + {PACKAGE}/), "
        f"gradebook {course.coursedir().db_url}; edition {args.language} ({LANGUAGES[args.language]})"
    )
    where = "" if args.course == DEFAULT_COURSE else f" --course {course.root}"
    console.print(f"next: {script('workbook')} release{where}", highlight=False, soft_wrap=True)
    return 0
