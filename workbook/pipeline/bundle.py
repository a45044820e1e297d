"""What grading one student needs, as plain data: the course's grading bundle and one student's submission.

A grading task (``workbook.pipeline.student_grading.grade``) receives a ``GradingBundle`` and a ``Submission`` and
nothing else: no path into the course, no gradebook, no other student. So it can run in any process of any
machine that has the project and bubblewrap installed (a worker of a Dask cluster), and its result is plain
data that one process, the one running ``workbook autograde``, records (``workbook.pipeline.recording``).

The bundle holds the course's ``nbgrader_config.py``, its ``source/`` assignment (the notebooks, the package with
its visible cases), its hidden cases (``grading/cases/``), an SQLite gradebook holding only the assignment's
notebooks and cells (copied from the course's gradebook, SQLite or PostgreSQL, through nbgrader's own tables),
and the run's limits. A worker that holds a bundle holds the hidden cases: it must be a machine students cannot
log in to.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Base, Gradebook
from sqlalchemy import select

from workbook.course.layout import ASSIGNMENT, CONFIG_FILE, Course
from workbook.course.received import Received, record_receipt, submission_time
from workbook.errors import CourseError

GRADEBOOK = "gradebook.db"
"""The scratch gradebook's file name in a materialized course."""

DEFINITIONS = ("assignment", "notebook", "base_cell", "source_cell", "grade_cells", "solution_cells", "task_cells")
"""nbgrader's tables that define an assignment (no student, no submission): what a scratch gradebook holds."""


@dataclass(frozen=True)
class GradingBundle:
    """The course as a grading task sees it: ``files`` (path relative to the course, e.g.
    ``source/compaction_labs/01_record_parsing.ipynb``, to its bytes), ``gradebook`` (an SQLite gradebook file's
    bytes: the assignment's notebooks and cells, no student), the course's nbgrader ``course_id``, the
    ``timeout`` per cell (seconds) and the ``isolation`` the student's code runs under (``required`` or
    ``off``)."""

    files: dict[str, bytes]
    gradebook: bytes
    course_id: str
    timeout: int
    isolation: str

    def materialize(self, root: Path) -> Course:
        """Write the bundle out as a course at ``root`` (an empty folder) whose gradebook is the scratch one
        (``root/gradebook.db``); return it."""
        for name, data in self.files.items():
            _write(root, name, data)
        (root / GRADEBOOK).write_bytes(self.gradebook)
        config = root / CONFIG_FILE
        url = f"sqlite:///{root / GRADEBOOK}"
        override = f"\n# A grading task's scratch gradebook.\nc.CourseDirectory.db_url = {url!r}\n"
        config.write_text(config.read_text(encoding="utf-8") + override, encoding="utf-8")
        return Course(root)


@dataclass(frozen=True)
class Submission:
    """One student's submission as a grading task sees it: ``files`` (path relative to
    ``submitted/STUDENT/compaction_labs`` to bytes), its trusted receipt ``received`` (None when the course has
    no time for it), ``fingerprint``, a SHA-256 of both, which tells a recorded grading of this very
    submission from one of an earlier one, and ``seeds``, ``(lab, seed)`` pairs of generated variants to judge
    with again (``workbook regrade``; empty: fresh seeds)."""

    student: str
    files: dict[str, bytes]
    received: Received | None
    fingerprint: str
    seeds: tuple[tuple[int, int], ...] = ()

    def materialize(self, course: Course) -> None:
        """Write the submission into ``course`` (made by ``GradingBundle.materialize``), with its receipt."""
        for name, data in self.files.items():
            _write(course.submitted(self.student), name, data)
        if self.received is not None:
            record_receipt(course, self.student, self.received.time, self.received.source)


def _write(root: Path, name: str, data: bytes) -> None:
    """Write ``data`` at ``root/name``; raise ``CourseError`` for a name that leaves ``root``."""
    path = root / name
    if ".." in Path(name).parts or Path(name).is_absolute():
        raise CourseError(f"a grading bundle's file {name!r} is not inside its folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def files_below(folder: Path, under: str = "") -> dict[str, bytes]:
    """Every regular file below ``folder`` by its path relative to ``folder`` (prefixed with ``under``); caches of
    Python and Jupyter left out."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not {"__pycache__", ".ipynb_checkpoints"} & set(relative.parts):
            found[str(Path(under) / relative)] = path.read_bytes()
    return found


def read_submission(course: Course, student: str) -> Submission:
    """``student``'s submission (already accepted by intake: regular files only) and its trusted time."""
    files = files_below(course.submitted(student))
    received = submission_time(course, student)
    digest = hashlib.sha256()
    for name, data in files.items():
        digest.update(json.dumps(name).encode() + hashlib.sha256(data).digest())
    digest.update(json.dumps(None if received is None else [received.time.isoformat(), received.source]).encode())
    return Submission(student, files, received, digest.hexdigest())


def grading_bundle(course: Course, timeout: int, isolation: str) -> GradingBundle:
    """The bundle of ``course`` for a run with ``timeout`` seconds per cell and ``isolation`` (``required`` or
    ``off``): its config, ``source/`` assignment, hidden cases and the assignment's definition in a fresh SQLite
    gradebook."""
    files = {CONFIG_FILE: course.config_file.read_bytes()}
    files |= files_below(course.source, str(course.source.relative_to(course.root)))
    if course.cases.is_dir():
        files |= files_below(course.cases, str(course.cases.relative_to(course.root)))
    course_id = course.coursedir().course_id
    return GradingBundle(files, assignment_gradebook(course, course_id), course_id, timeout, isolation)


def assignment_gradebook(course: Course, course_id: str) -> bytes:
    """The bytes of a new SQLite gradebook holding ``course``'s assignment as its gradebook defines it (its
    notebooks and their cells, rows of nbgrader's ``DEFINITIONS`` tables), and no student."""
    tables = {table.name: table for table in Base.metadata.sorted_tables}
    with tempfile.TemporaryDirectory(prefix="workbook-bundle-") as folder:
        path = Path(folder, GRADEBOOK)
        with course.gradebook() as origin, Gradebook(f"sqlite:///{path}", course_id) as target:
            assignment = origin.find_assignment(ASSIGNMENT)
            wanted = {
                "assignment": {assignment.id},
                "notebook": {notebook.id for notebook in assignment.notebooks},
            }
            cells = set(
                origin.db.execute(
                    select(tables["base_cell"].c.id).where(tables["base_cell"].c.notebook_id.in_(wanted["notebook"]))
                ).scalars()
            )
            cells |= set(
                origin.db.execute(
                    select(tables["source_cell"].c.id).where(
                        tables["source_cell"].c.notebook_id.in_(wanted["notebook"])
                    )
                ).scalars()
            )
            for name in DEFINITIONS:
                table = tables[name]
                ids = wanted.get(name, cells)
                # Every row, then filtered here: the rows keep the origin's own order (nbgrader reads the
                # cells in it, e.g. restoring deleted grade cells), which a lookup by id would not.
                rows = [dict(row) for row in origin.db.execute(select(table)).mappings() if row["id"] in ids]
                if rows:
                    target.db.execute(table.insert(), rows)
            target.db.commit()
        return path.read_bytes()
