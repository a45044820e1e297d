"""The CSV files an LMS gradebook imports: ``workbook export --format canvas`` and ``--format moodle``.

Each student's row carries the lab scores of ``workbook.lms.scores`` (after the late penalty, pending answers counted
0 as in every export), and the student's identity from the LMS's own roster export (``--roster FILE``), matched by a
roster column whose value is the nbgrader student id: by default the SIS id (Canvas ``SIS User ID``, Moodle ``ID
number``; the LTI launch's ``lis_person_sourcedid``, as ``workbook lms push`` matches). A student missing from the
roster is named and left out (an LMS cannot place a row it cannot identify); a roster row without a submission is
left out too (the LMS keeps what it has).

- **Canvas** (the gradebook's *Import*): the columns ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``,
  ``Section`` as Canvas's gradebook export names them, then one column per lab. A lab whose assignment Canvas already
  has keeps Canvas's header (``Lab 1: record parsing (1234)``: the name, then the assignment id), so its scores go to
  that assignment; any other is a new assignment named after the lab. The second row is Canvas's ``Points
  Possible`` row (each lab's points).
- **Moodle** (*Grades > Import > CSV file*): ``First name``, ``Last name``, ``ID number``, ``Email address`` as
  Moodle's grade export names them, then one column per lab named after it; on import, map ``ID number`` to the
  user's ID number and each lab column to its grade item.

The roster is read as UTF-8 (with or without a byte order mark); the file is written as UTF-8 by the ``csv``
module, so a name with a comma or a quote stays one field and letters outside ASCII stay as written.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from workbook.course.layout import Course
from workbook.course.roster import CANVAS_POINTS_POSSIBLE, read_roster, roster_columns
from workbook.course.roster import KEY as ROSTER_KEY
from workbook.errors import CourseError
from workbook.lms.scores import Planned, Target, planned_scores
from workbook.pipeline.grades import points_text

FORMATS = ("canvas", "moodle")
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDENTITY = ("First name", "Last name", "ID number", "Email address")
MOODLE_SURNAME = "Surname"
"""What some Moodle versions and languages call ``Last name`` in their export; read as it."""


@dataclass(frozen=True)
class LmsFile:
    """A written LMS gradebook file: its ``path``, the students ``written``, those ``missing`` from the roster
    (not written), and the scores left empty (``not_graded``: student and lab, not autograded yet)."""

    path: Path
    written: tuple[str, ...]
    missing: tuple[str, ...]
    not_graded: tuple[str, ...] = ()


def _canvas_header(target: Target, roster_columns: list[str]) -> str:
    pattern = re.compile(rf"{re.escape(target.label)} \(\d+\)")
    return next((column for column in roster_columns if pattern.fullmatch(column)), target.label)


def write_lms_file(
    course: Course, kind: str, roster: Path, to: Path | None = None, roster_id: str | None = None
) -> LmsFile:
    """Write the ``kind`` (``canvas`` or ``moodle``) gradebook file of ``course`` to ``to`` (default
    ``COURSE/grades-KIND.csv``) with the identities of ``roster`` matched by its column ``roster_id`` (default
    ``ROSTER_KEY[kind]``); return what was written (see the module).

    Raises ``CourseError`` naming an unknown format, an unreadable roster or a missing column; nothing is written
    then."""
    if kind not in FORMATS:
        raise CourseError(f"--format {kind!r}: the LMS formats are {', '.join(FORMATS)}")
    key = roster_id or ROSTER_KEY[kind]
    people = read_roster(roster, key)
    columns = roster_columns(roster)
    plan = planned_scores(course)
    targets = list(dict.fromkeys(planned.target for planned in plan))
    students = sorted({planned.student for planned in plan})
    scores: dict[tuple[str, str], Planned] = {(p.student, p.target.resource_id): p for p in plan}
    if kind == "canvas":
        identity = list(CANVAS_IDENTITY)
        headers = [_canvas_header(target, columns) for target in targets]
    else:
        identity = list(MOODLE_IDENTITY)
        headers = [target.label for target in targets]
    dest = Path(to or course.root / f"grades-{kind}.csv").resolve()
    written, not_graded = [], []
    with dest.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(identity + headers)
        if kind == "canvas":
            points = [points_text(target.score_maximum) for target in targets]
            writer.writerow([CANVAS_POINTS_POSSIBLE] + [""] * (len(identity) - 1) + points)
        for student in students:
            if student not in people:
                continue
            person = people[student]
            if kind == "moodle" and "Last name" not in person:
                person = {**person, "Last name": person.get(MOODLE_SURNAME, "")}
            cells = []
            for target in targets:
                planned = scores[(student, target.resource_id)]
                if planned.score is None:
                    not_graded.append(f"{student}, {target.label}")
                cells.append("" if planned.score is None else points_text(planned.score.score_given, digits=4))
            writer.writerow([person.get(column, "") for column in identity] + cells)
            written.append(student)
    missing = tuple(f"{name} (no roster row with {key} {name!r})" for name in students if name not in people)
    return LmsFile(dest, tuple(written), missing, tuple(not_graded))
