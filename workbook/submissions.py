"""Student submissions in nbgrader's layout, and the bundled sample packages the demo grades.

A submission is ``submitted/STUDENT/compaction_labs/``: the released notebooks, the student's
``compaction_lab/`` package and ``timestamp.txt`` (nbgrader's submission time format), exactly
what ``nbgrader collect`` would leave there.

Sample packages (``SAMPLES``), each built from ``solutions/`` and ``starters/`` at run time:

- ``complete``: the reference solutions;
- ``blank``: the starters, untouched;
- ``partial``: the starters with labs 1 and 2 done (``records.py`` and ``grouping.py`` from the solutions);
- ``buggy``: the solutions, but lab 3 keeps the last three messages (``messages[-3:]``) instead of
  whole interactions, the chapter's deliberate failure (the validity bank's ``BUGGY_MISTAKE``).

Every sample but ``blank`` also answers the written question of each lab it did (``ANSWERED_LABS``),
so its hand-graded answers wait for a grader, as real ones do. An answer left as released is graded
0 by autograde and needs no grader.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from .course import PACKAGE, Course
from .labs import LABS, lab_of_notebook
from .paths import SOLUTIONS, STARTERS
from .validity import bank, module_text

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"

BUGGY_MISTAKE = "last_three_messages"
"""The mistake of the validity bank (``workbook.validity``) that the buggy sample makes in lab 3."""


def copy_package(source: Path, dest: Path) -> Path:
    """Copy the package folder ``source`` to ``dest`` (which must not exist), without caches; return ``dest``."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def complete(dest: Path) -> Path:
    """The reference solutions."""
    return copy_package(SOLUTIONS, dest)


def blank(dest: Path) -> Path:
    """The starters, as released."""
    return copy_package(STARTERS, dest)


def partial(dest: Path) -> Path:
    """The starters with labs 1 and 2 done."""
    copy_package(STARTERS, dest)
    for module in ("records.py", "grouping.py"):
        shutil.copyfile(SOLUTIONS / module, dest / module)
    return dest


def buggy(dest: Path) -> Path:
    """The solutions with lab 3 selecting ``messages[-3:]`` (``BankError`` if that patch no longer applies)."""
    copy_package(SOLUTIONS, dest)
    mistake = next(entry for entry in bank((3,)) if entry.name == BUGGY_MISTAKE)
    (dest / "budget.py").write_text(module_text(mistake), encoding="utf-8")
    return dest


SAMPLES = {"complete": complete, "blank": blank, "partial": partial, "buggy": buggy}
"""Sample name -> function writing that package to a new folder."""

ALL_LABS = tuple(lab.number for lab in LABS)
ANSWERED_LABS = {"complete": ALL_LABS, "blank": (), "partial": (1, 2), "buggy": ALL_LABS}
"""Sample name -> the labs whose written (hand-graded) answer the sample fills in."""

SAMPLE_ANSWER = "A sample submission's written answer, for the instructor to grade in nbgrader's formgrader."


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


def submit(course: Course, student: str, package: Path, timestamp: datetime | None = None,
           answered_labs: tuple[int, ...] = ()) -> Path:
    """Place ``student``'s submission: the released notebooks (with the written answers of ``answered_labs``
    filled in), a copy of ``package`` as ``compaction_lab/`` and ``timestamp.txt`` (default: now, UTC).
    Replaces an earlier submission; returns its folder.

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
    return folder
