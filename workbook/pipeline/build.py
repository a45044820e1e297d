"""``workbook build``'s work: a new course laid out, from the project's notebooks, starters and cases."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

from workbook.course.config import config_text
from workbook.course.editions import EDITIONS, SOURCE_LANGUAGE, check_language, edition, mark_package
from workbook.course.layout import DEFAULT_COURSE, DEFAULT_COURSE_ID, PACKAGE, Course
from workbook.course.packages import starter_package
from workbook.errors import CourseError
from workbook.grading.casebook import KINDS, write_visible_file
from workbook.grading.course_answers import write_answers_file
from workbook.manifest import LABS
from workbook.paths import LAB_CASES, NOTEBOOKS, STARTERS

START_PAGE = "START.md"
"""The workspace's first page for a student (beside the notebooks), released with them."""


def build(
    root: Path = DEFAULT_COURSE,
    db_url: str | None = None,
    force: bool = False,
    notebooks: Path = NOTEBOOKS,
    starters: Path = STARTERS,
    course_id: str | None = None,
    cases: Path = LAB_CASES,
    language: str = SOURCE_LANGUAGE,
    editions: Path = EDITIONS,
) -> Course:
    """Lay out the course at ``root``: config, ``source/compaction_labs`` (the notebooks, ``START.md`` and a starter
    package whose visible cases are compiled from ``cases``), the course's cases (``grading/cases``: each lab's
    ``visible.py`` and ``hidden.py``, outside ``source/``, so never released) and the gradebook.

    A gradebook other than SQLite gets a course id (``course_id``, default ``DEFAULT_COURSE_ID``):
    nbgrader's default, the empty id, has no row in its ``course`` table, which only SQLite (without
    foreign-key checks) tolerates; PostgreSQL rejects the assignment.

    ``force`` rewrites the config, ``source/`` and ``grading/cases`` of an existing course (submissions, grades
    and the gradebook are kept). Raises ``CourseError`` if the course exists without ``force`` or if ``notebooks``
    holds no ``.ipynb`` file.

    ``language`` chooses the notebooks' edition (``workbook.course.editions``: English, the default, or a
    translation built from ``editions``); the config and the starter package (``mark_package``, so the student's
    messages speak it too) record it. Every notebook's edition is built before the
    course is touched, so an unknown language or an incomplete translation (``EditionError``) changes nothing.
    """
    course = Course(root)
    if course.config_file.exists() and not force:
        raise CourseError(f"{course.root} is already a course; pass --force to rewrite its config and source/")
    found = sorted(notebooks.glob("*.ipynb"))
    if not found:
        raise CourseError(f"no notebooks in {notebooks}")
    if check_language(language) != SOURCE_LANGUAGE:  # English is copied as it is
        built = {notebook.name: edition(language, notebook, editions) for notebook in found}
    course.root.mkdir(parents=True, exist_ok=True)
    if db_url and not db_url.startswith("sqlite") and not course_id:
        course_id = DEFAULT_COURSE_ID
    course.config_file.write_text(config_text(db_url, course_id, language=language), encoding="utf-8")
    if course.source.exists():
        shutil.rmtree(course.source)
    course.source.mkdir(parents=True)
    for notebook in [*found, *notebooks.glob(START_PAGE)]:
        shutil.copyfile(notebook, course.source / notebook.name)
    if language != SOURCE_LANGUAGE:
        for name, translated in built.items():
            nbformat.write(translated, course.source / name)
    copy_cases(cases, course.cases)
    starter_package(course.source / PACKAGE, starters=starters)
    mark_package(course.source / PACKAGE, language)
    write_visible_file(course.source / PACKAGE, course.cases)
    write_answers_file(course.source / PACKAGE, course.cases)
    with course.gradebook():
        pass  # creates the database and its tables
    return course


def copy_cases(cases: Path, dest: Path) -> None:
    """Replace ``dest`` by a copy of the case files (``<module>/visible.py``, ``hidden.py`` and ``variants.py``) of
    ``cases``."""
    if dest.exists():
        shutil.rmtree(dest)
    for lab in LABS:
        for name in (*KINDS, "variants"):  # the generators stay with the grader, as the hidden cases do
            source = cases / lab.module / f"{name}.py"
            if source.is_file():
                (dest / lab.module).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest / lab.module / source.name)
