"""What the course commands share on the command line: the ``--course DIR`` option, a report printed by kind."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from workbook.course.layout import DEFAULT_COURSE

if TYPE_CHECKING:  # rich is imported when a report is printed, not when the command line is parsed
    from rich.console import Console


def add_course_option(parser: argparse.ArgumentParser) -> None:
    """The ``--course DIR`` option every course command takes."""
    parser.add_argument(
        "--course",
        type=Path,
        default=DEFAULT_COURSE,
        help=f"the nbgrader course directory (default: ./{DEFAULT_COURSE})",
    )


def print_by_kind(console: Console, kinds: Iterable[tuple[str, Iterable[str], str]]) -> None:
    """Print every line of a command's report as ``KIND: line``, in ``kinds``' order: each ``(kind, lines,
    style)`` gives the lines of one kind and the rich style they are printed in ("" for none). The lines are
    escaped, so a name holding rich markup prints as written."""
    from rich.markup import escape

    for kind, lines, style in kinds:
        for line in lines:
            text = f"{kind}: {escape(line)}"
            console.print(f"[{style}]{text}[/]" if style else text, highlight=False)
