"""Submissions that honest students produce by accident (issue 11), built from the solutions: each is a
complete, correct submission with one accident, so the right grade is full marks, less only what the
accident breaks."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat

from workbook.authoring.samples import complete
from workbook.authoring.starters import replace_region
from workbook.course.layout import Course
from workbook.course.submit import submit
from workbook.manifest import LABS
from workbook.pipeline.release import hidden_case_secrets

LAB3 = "03_budget_projection"
DUE = datetime(2026, 12, 15, 17, 0, tzinfo=UTC)
"""The due date of the course these submissions go to; every submission but ``late`` is an hour early."""
BAD_TIMESTAMP = "yesterday, around noon"
"""What a hand-edited ``timestamp.txt`` may hold: nbgrader itself cannot parse it."""
NOISY_BUILD_CONTEXT = '''

import logging as _logging
import sys as _sys
import warnings as _warnings

_quiet_build_context = build_context


def build_context(active_path, options):
    """The solution's build_context, noisily: a warning (its text names the window, so Python shows it on
    every call, not once), a log line and a debug print on stderr."""
    _warnings.warn(f"build_context: a student's warning at max_tokens {options.max_tokens}")
    _logging.getLogger("budget").warning("build_context: a student's log line")
    print("build_context: a student's debug print", file=_sys.stderr)
    return _quiet_build_context(active_path, options)
'''


def solutions_with(dest: Path, lab: int, body: str) -> Path:
    """The solutions, with lab ``lab``'s (first) region replaced by ``body``."""
    complete(dest)
    module = dest / f"{LABS[lab - 1].module}.py"
    module.write_text(replace_region(module.read_text(), lab, body, module.name))
    return dest


def edit_notebook(folder: Path, notebook: str, change) -> None:
    """Apply ``change`` (a function of the notebook node) to ``folder/notebook.ipynb``, as a student's
    JupyterLab would save it (cell ids kept, copies get new ones)."""
    path = folder / f"{notebook}.ipynb"
    content = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    change(content)
    nbformat.write(content, path)


def cell_index(content, grade_id: str) -> int:
    """The index of the cell with nbgrader ``grade_id``."""
    return next(
        index
        for index, cell in enumerate(content.cells)
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def copy_cell(content, grade_id: str) -> None:
    """Paste a copy of cell ``grade_id`` (metadata included, a new cell id) right below it."""
    index = cell_index(content, grade_id)
    pasted = copy.deepcopy(content.cells[index])
    pasted.id = f"{pasted.id[:20]}-copy"
    content.cells.insert(index + 1, pasted)


def delete_cells(content, *grade_ids: str) -> None:
    """Remove the cells with these nbgrader grade ids."""
    content.cells = [
        cell for cell in content.cells if cell.metadata.get("nbgrader", {}).get("grade_id") not in grade_ids
    ]


def edit_cell(content, grade_id: str, line: str) -> None:
    """Append ``line`` to the source of cell ``grade_id`` (a locked cell: JupyterLab lets a student do it)."""
    cell = content.cells[cell_index(content, grade_id)]
    cell.source += f"\n{line}"


def submit_accidents(course: Course, scratch: Path) -> dict[str, str]:
    """Submit one student per accident to ``course`` (released, due ``DUE``); return student -> what they did."""
    package = complete(scratch / "complete")
    on_time = DUE - timedelta(hours=1)
    made = {
        "complete": "the solutions, untouched notebooks",
        "copied": f"{LAB3}: test cell lab3_trim_boundary pasted twice",
        "deleted": f"{LAB3}: test cells lab3_fixed_costs (right after the locked setup cell) and lab3_trim_boundary "
        "deleted",
        "edited": f"{LAB3}: a line added to the locked setup cell",
        "renamed": f"{LAB3}.ipynb saved as {LAB3}-Copy1.ipynb (written answer given) and an Untitled.ipynb",
        "exits": "os._exit(0) inside lab 4's create_compaction_entry",
        "warns": "lab 3's build_context warns, logs and prints to stderr",
        "late": "the solutions and lab 1's written answer, an hour after the due date",
        "badtime": f"the solutions, with {BAD_TIMESTAMP!r} in timestamp.txt",
        "guessed": f"{LAB3}: a note of the student's own that happens to write out a hidden case's call",
    }
    for student in ("complete", "copied", "deleted", "edited"):
        submit(course, student, package, on_time)
    edit_notebook(course.submitted("copied"), LAB3, lambda content: copy_cell(content, "lab3_trim_boundary"))
    edit_notebook(
        course.submitted("deleted"),
        LAB3,
        lambda content: delete_cells(content, "lab3_fixed_costs", "lab3_trim_boundary"),
    )
    edit_notebook(course.submitted("edited"), LAB3, lambda content: edit_cell(content, "lab3_setup", "x = 1"))
    folder = submit(course, "renamed", package, on_time, answered_labs=(3,))
    (folder / f"{LAB3}.ipynb").rename(folder / f"{LAB3}-Copy1.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), folder / "Untitled.ipynb")
    submit(course, "exits", solutions_with(scratch / "exits", 4, "import os\nos._exit(0)"), on_time)
    noisy = complete(scratch / "warns")
    (noisy / "budget.py").write_text((noisy / "budget.py").read_text() + NOISY_BUILD_CONTEXT)
    submit(course, "warns", noisy, on_time)
    submit(course, "late", package, DUE + timedelta(hours=1), answered_labs=(1,))
    (submit(course, "badtime", package, on_time) / "timestamp.txt").write_text(BAD_TIMESTAMP)
    submit(course, "guessed", package, on_time)
    edit_notebook(
        course.submitted("guessed"),
        LAB3,
        lambda content: content.cells.append(nbformat.v4.new_markdown_cell(f"My own try: `{hidden_call(course, 3)}`")),
    )
    return made


def hidden_call(course: Course, lab: int) -> str:
    """The call of one of lab ``lab``'s secret hidden cases (one a feedback page must never show)."""
    return next(
        calls[0]
        for key, calls in sorted(hidden_case_secrets(course).items())
        if key.startswith(f"hidden case lab{lab}")
    )


def set_due_date_and_zero_penalty(course: Course) -> None:
    """Give the assignment the due date ``DUE`` and the course nbgrader's late rule "zero" (a late
    submission scores 0), as an instructor would in ``nbgrader_config.py`` and ``nbgrader db``."""
    with course.config_file.open("a", encoding="utf-8") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    with course.gradebook() as gradebook:
        gradebook.update_or_create_assignment("compaction_labs", duedate=DUE.replace(tzinfo=None))


def grade_by_hand(course: Course, student: str, grade_id: str, notebook: str, points: float) -> None:
    """Give ``student``'s manually graded answer ``grade_id`` ``points``, as the formgrader does."""
    with course.gradebook() as gradebook:
        grade = gradebook.find_grade(grade_id, notebook, "compaction_labs", student)
        grade.manual_score, grade.needs_manual_grade = points, False
        gradebook.db.commit()
