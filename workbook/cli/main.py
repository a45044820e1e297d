"""``workbook``: one command line for every role's commands, each a thin module of this folder.

A command's module registers its parser with ``add_parser(subparsers)`` and sets ``run(args, console) -> exit
code`` as the parser's default; it imports the work (nbgrader, the judge) only inside ``run``, so ``workbook
--help`` and a student's ``workbook check`` never wait for nbgrader. Adding a command is one line in
``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING

from workbook.errors import CourseError
from workbook.third_party_warnings import ignore_nbgrader_add_submission_warning

if TYPE_CHECKING:
    from rich.console import Console

DESCRIPTION = (
    "The compaction workbook's tools. Instructors: build, release, collect (or intake an LMS download), autograde, "
    "regrade (after editing a case), grades, feedback, export, lms push (grades to the LMS), report, similarity (in "
    "that order, on an nbgrader course directory), demo, and validate (do the tests grade right?). "
    "Students without a hub: practice, check and hint. Anyone: inspect a real coding-agent session under the labs' "
    "rules."
)

COMMANDS = (
    "build",
    "release",
    "collect",
    "intake",
    "autograde",
    "regrade",
    "grades",
    "feedback",
    "export",
    "lms",
    "report",
    "similarity",
    "validate",
    "demo",
    "practice",
    "check",
    "hint",
    "inspect",
)
"""The commands, in the order ``--help`` lists them; each is the module ``workbook.cli.<command>``."""


def parser() -> argparse.ArgumentParser:
    """The ``workbook`` argument parser, every command registered by its own module."""
    root = argparse.ArgumentParser(
        prog="workbook", description=DESCRIPTION, epilog="`workbook COMMAND --help` describes one command."
    )
    subparsers = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        importlib.import_module(f"workbook.cli.{command}").add_parser(subparsers)
    return root


def command_console() -> Console:
    """Rich's console for a command's output: a terminal's width, ``COLUMNS`` when set, else a ``PipeConsole``
    (rich would assume 80 columns and cut table cells to ``stude…``; a log or CI keeps them whole)."""
    from rich.console import Console

    from workbook.cli.pipe_console import PipeConsole

    console = Console()
    return console if console.is_terminal or "COLUMNS" in os.environ else PipeConsole()


def main(argv: list[str] | None = None) -> int:
    """Run one ``workbook`` command; return its exit code (1 with a one-line message on a course error)."""
    argv = sys.argv[1:] if argv is None else argv
    ignore_nbgrader_add_submission_warning()
    args = parser().parse_args(argv)
    console = command_console()
    try:
        code = args.run(args, console)
    except CourseError as error:
        console.print(f"[red]workbook {args.command}: {error}[/]", highlight=False)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
