"""``workbook``: the instructor's pipeline (build, release, autograde, feedback, export) and its grade
table (grades), the student's practice commands (practice, check), the demo, inspect (a real
session file under the labs' rules) and validate (the validity gate of the case tables).

Each command lives in its own module, which registers itself with ``add_parser(subparsers)``
(setting ``run(args, console) -> exit code`` as the parser default). Adding a command is one
line in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rich.console import Console

from .course import CourseError
from .third_party_warnings import ignore_nbgrader_add_submission_warning

DESCRIPTION = ("The compaction workbook's tools. Instructors: build, release, autograde, feedback, export "
               "(in that order, on an nbgrader course directory), grades, demo, and validate (do the tests grade "
               "right?). Students without a hub: practice and check. Anyone: inspect a real coding-agent session "
               "under the labs' rules.")

COMMANDS = (
    "workbook.course",  # build
    "workbook.release",
    "workbook.autograde",
    "workbook.grades",
    "workbook.feedback",
    "workbook.export",
    "workbook.practice",  # practice, check
    "workbook.demo",
    "workbook.inspect",
    "workbook.validate",
)


def parser() -> argparse.ArgumentParser:
    """The ``workbook`` argument parser with every command of ``COMMANDS``."""
    root = argparse.ArgumentParser(prog="workbook", description=DESCRIPTION,
                                   epilog="`workbook COMMAND --help` describes one command.")
    subparsers = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(subparsers)
    return root


def main(argv: list[str] | None = None) -> int:
    """Run one ``workbook`` command; return its exit code (1 with a one-line message on a course error)."""
    ignore_nbgrader_add_submission_warning()  # nbgrader's own SQLAlchemy 2 noise, see that module
    args = parser().parse_args(argv)
    console = Console()
    try:
        return args.run(args, console)
    except CourseError as error:
        console.print(f"[red]workbook {args.command}: {error}[/]", highlight=False)
        return 1


if __name__ == "__main__":
    sys.exit(main())
