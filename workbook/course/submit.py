"""Student submissions in nbgrader's layout: ``submit`` places one as ``nbgrader collect`` would.

A submission is ``submitted/STUDENT/compaction_labs/``: the released notebooks, the student's
``compaction_lab/`` package and ``timestamp.txt`` (nbgrader's submission time format), exactly
what ``nbgrader collect`` would leave there, and the grader's receipt of that time (``workbook.course.received``),
as ``workbook collect`` keeps it.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from workbook.course.layout import PACKAGE, Course
from workbook.course.received import record_receipt
from workbook.manifest import lab_of_notebook

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"
SAMPLE_ANSWER = "A sample submission's written answer, for the instructor to grade in nbgrader's formgrader."


def copy_package(source: Path, dest: Path) -> Path:
    """Copy the package folder ``source`` to ``dest`` (which must not exist), without caches; return ``dest``."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def is_written_answer(cell: nbformat.NotebookNode) -> bool:
    """Whether ``cell`` is a manually graded answer: an nbgrader grade cell that is also a solution cell."""
    flags = cell.metadata.get("nbgrader", {})
    return bool(flags.get("grade") and flags.get("solution"))


def answer_written_questions(notebook: Path, text: str = SAMPLE_ANSWER) -> int:
    """Replace the source of every manually graded answer cell of ``notebook`` (a file, rewritten in place)
    by ``text``; return how many cells were answered."""
    content = nbformat.read(notebook, as_version=nbformat.NO_CONVERT)
    answers = [cell for cell in content.cells if is_written_answer(cell)]
    for cell in answers:
        cell.source = text
    nbformat.write(content, notebook)
    return len(answers)


def submit(
    course: Course, student: str, package: Path, timestamp: datetime | None = None, answered_labs: tuple[int, ...] = ()
) -> Path:
    """Place ``student``'s submission: the released notebooks (with the written answers of ``answered_labs``
    filled in), a copy of ``package`` as ``compaction_lab/`` and ``timestamp.txt`` (default: now, UTC), and its
    receipt at that time. Replaces an earlier submission; returns its folder.

    Raises ``FileNotFoundError`` naming the release folder if the course has not been released, and
    ``ValueError`` naming the notebook if one of ``answered_labs`` has no manually graded answer cell.
    """
    notebooks = sorted(course.release.glob("*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no released notebooks in {course.release}; run `workbook release` first")
    folder = course.submitted(student)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for notebook in notebooks:
        shutil.copyfile(notebook, folder / notebook.name)
        if lab_of_notebook(notebook.name) in answered_labs and not answer_written_questions(folder / notebook.name):
            raise ValueError(f"{notebook}: no manually graded answer cell to answer")
    copy_package(package, folder / PACKAGE)
    when = timestamp or datetime.now(UTC)
    (folder / "timestamp.txt").write_text(when.strftime(TIMESTAMP_FORMAT), encoding="utf-8")
    record_receipt(course, student, when, "placed as submitted")
    return folder
