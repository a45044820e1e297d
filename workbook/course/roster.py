"""An LMS's own roster export (Canvas's gradebook export, Moodle's grade export), read as the table of its students.

The roster maps the LMS's ids and names to the nbgrader student id through one of its columns (``KEY``: by default
the SIS id, Canvas ``SIS User ID`` and Moodle ``ID number``, which is also the LTI launch's
``lis_person_sourcedid``). ``workbook export --format canvas|moodle`` writes identities from it and ``workbook
intake`` names each submission's student with it.
"""

from __future__ import annotations

import csv
from pathlib import Path

from workbook.errors import CourseError

CANVAS_POINTS_POSSIBLE = "    Points Possible"
"""The first field of Canvas's points-possible row, as its gradebook export writes it."""
KEY = {"canvas": "SIS User ID", "moodle": "ID number"}
"""The roster column whose value is the nbgrader student id, per LMS (``--roster-id`` overrides)."""


def read_roster_rows(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the roster CSV ``path`` (UTF-8, with or without a byte order mark), Canvas's points-possible row
    left out.

    Raises ``CourseError`` naming the file when it cannot be read, or naming a ``required`` column it lacks and the
    columns it has."""
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            columns = list(reader.fieldnames or [])
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"--roster {path}: cannot be read as a UTF-8 CSV file ({error})") from error
    for column in required:
        if column not in columns:
            raise CourseError(f"--roster {path}: no column {column!r} (its columns: {', '.join(columns)})")
    return [row for row in rows if (row.get("Student") or "").strip() != CANVAS_POINTS_POSSIBLE.strip()]


def roster_columns(path: Path) -> list[str]:
    """The header of the roster CSV ``path``; raises ``CourseError`` as ``read_roster_rows``."""
    try:
        with Path(path).open(newline="", encoding="utf-8-sig") as handle:
            return next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"--roster {path}: cannot be read as a UTF-8 CSV file ({error})") from error


def read_roster(path: Path, key: str) -> dict[str, dict[str, str]]:
    """The roster CSV ``path`` by the value of its column ``key`` (rows without one are skipped).

    Raises ``CourseError`` as ``read_roster_rows``."""
    rows = read_roster_rows(path, (key,))
    return {row[key].strip(): row for row in rows if (row.get(key) or "").strip()}
