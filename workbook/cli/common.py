"""What the course commands share on the command line: the ``--course DIR`` option."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbook.course.layout import DEFAULT_COURSE


def add_course_option(parser: argparse.ArgumentParser) -> None:
    """The ``--course DIR`` option every course command takes."""
    parser.add_argument(
        "--course",
        type=Path,
        default=DEFAULT_COURSE,
        help=f"the nbgrader course directory (default: ./{DEFAULT_COURSE})",
    )
