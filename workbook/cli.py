"""``workbook``: the instructor's pipeline (build, release, autograde, feedback, export) and its grade
table (grades), the student's practice commands (practice, check), the demo, inspect (a real
session file under the labs' rules) and validate (the validity gate of the case tables).

Each command lives in its own module, which registers itself with ``add_parser(subparsers)``
(setting ``run(args, console) -> exit code`` as the parser default). Adding a command is one
line in ``COMMANDS``.

Only the chosen command's module is imported: most of them load nbgrader, which takes seconds, and
``workbook --help`` or a student's ``workbook check`` must not wait for it. The other commands are
listed with the ``help`` their module's ``add_parser`` gives, read from its source without importing it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys
from pathlib import Path

from .errors import CourseError
from .lean_imports import skip_iri_grammar

DESCRIPTION = ("The compaction workbook's tools. Instructors: build, release, autograde, feedback, export "
               "(in that order, on an nbgrader course directory), grades, demo, and validate (do the tests grade "
               "right?). Students without a hub: practice and check. Anyone: inspect a real coding-agent session "
               "under the labs' rules.")

COMMANDS = {
    "build": "workbook.course",
    "release": "workbook.release",
    "collect": "workbook.collect",
    "autograde": "workbook.autograde",
    "grades": "workbook.grades",
    "feedback": "workbook.feedback",
    "export": "workbook.export",
    "validate": "workbook.validate",
    "report": "workbook.report",
    "practice": "workbook.practice",
    "check": "workbook.check",
    "demo": "workbook.demo",
    "inspect": "workbook.inspect",
}
"""Each command and the module that implements it, in the order ``--help`` lists them."""


def command_help(module: str, command: str) -> str:
    """The ``help=`` text that ``module``'s ``add_parser`` registers ``command`` with, read from the
    module's source (not imported); empty when it is not a plain string."""
    tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_parser"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == command):
            return next((keyword.value.value for keyword in node.keywords
                         if keyword.arg == "help" and isinstance(keyword.value, ast.Constant)), "")
    return ""


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``workbook`` argument parser: ``command``'s module registers its full parser; every other
    command is listed by name and help only."""
    root = argparse.ArgumentParser(prog="workbook", description=DESCRIPTION,
                                   epilog="`workbook COMMAND --help` describes one command.")
    subparsers = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        if name == command:
            importlib.import_module(module).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=command_help(module, name))
    return root


def main(argv: list[str] | None = None) -> int:
    """Run one ``workbook`` command; return its exit code (1 with a one-line message on a course error)."""
    argv = sys.argv[1:] if argv is None else argv
    skip_iri_grammar()
    args = parser(next((word for word in argv if not word.startswith("-")), None)).parse_args(argv)
    if "nbgrader" in sys.modules:  # the command runs nbgrader: silence its one known SQLAlchemy warning
        from .third_party_warnings import ignore_nbgrader_add_submission_warning

        ignore_nbgrader_add_submission_warning()
    from rich.console import Console

    console = Console()
    try:
        return args.run(args, console)
    except CourseError as error:
        console.print(f"[red]workbook {args.command}: {error}[/]", highlight=False)
        return 1


if __name__ == "__main__":
    sys.exit(main())
