"""The trusted step of autograde: the judge's points into the gradebook, the in-kernel score kept as a cross-check.

nbgrader executes the submitted notebooks (in the sandbox) for the student's feedback page and writes what
its kernel reported as each grade cell's autograded score. That score comes from the student's process, so
it is only a cross-check: this step then judges every lab (``workbook.judge``), overwrites each autograded
cell's score with the judge's, and keeps both in ``COURSE/grading/results/STUDENT.json``:

- ``labs``: the judge's verdict per lab (every case's status, sentence and hint; each cell's points);
- ``kernel``: nbgrader's in-kernel score per grade cell (``null`` where the notebook was not executed);
- ``review``: the grade cells whose visible cases the kernel and the judge scored differently (both ran
  the same cases), which ``workbook autograde`` and ``workbook grades`` mark for an instructor's look;
- ``executed``: the notebooks nbgrader executed; ``notes``: what it repaired or could not do
  (``workbook.accidents``), shown in the status, the grade tables and the CSV.

Hand-given scores are never touched: the judge writes ``auto_score`` only.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbgrader.api import Gradebook, MissingEntry

from . import sandbox
from .cases import CaseBook, case_book
from .course import ASSIGNMENT, PACKAGE, Course
from .judge import LabVerdict, judge_submission
from .labs import LABS


def results_path(course: Course, student: str) -> Path:
    """``COURSE/grading/results/STUDENT.json``: the judge's results of ``student``'s latest grading."""
    return course.root / "grading" / "results" / f"{student}.json"


def course_case_book(course: Course) -> CaseBook:
    """The cases a course grades with: the visible cases of its ``source/`` package, its own hidden cases
    (``COURSE/grading/hidden_cases``, written by ``workbook build``) and the points of its source notebooks."""
    return case_book(course.source / PACKAGE / "provided" / "cases", hidden_cases_folder(course), course.source)


def hidden_cases_folder(course: Course) -> Path:
    """``COURSE/grading/hidden_cases``: the course's copy of the hidden cases (``workbook build`` writes it)."""
    return course.root / "grading" / "hidden_cases"


@dataclass(frozen=True)
class Review:
    """A grade cell whose in-kernel score and judge's score (on the same visible cases) differ."""

    grade_id: str
    kernel: float
    judge: float

    def text(self) -> str:
        """``lab3_trim_boundary (in-kernel 1, judge 0)``."""
        return f"{self.grade_id} (in-kernel {self.kernel:g}, judge {self.judge:g})"


def kernel_scores(gradebook: Gradebook, student: str, book: CaseBook,
                  executed: Collection[str] | None = None) -> dict[str, float | None]:
    """nbgrader's autograded score per grade cell of ``student`` (None where there is none, or where its
    notebook is not among the ``executed`` ones when given)."""
    scores: dict[str, float | None] = dict.fromkeys(book.points)
    try:
        submission = gradebook.find_submission(ASSIGNMENT, student)
    except MissingEntry:
        return scores
    for notebook in submission.notebooks:
        if executed is not None and notebook.name not in executed:
            continue
        for grade in notebook.grades:
            if grade.name in scores:
                scores[grade.name] = grade.auto_score
    return scores


def reviews(verdicts: list[LabVerdict], kernel: dict[str, float | None], book: CaseBook) -> list[Review]:
    """The grade cells with visible cases where the kernel's score differs from the judge's on those cases."""
    found = []
    for lab in verdicts:
        for grade_id in lab.scores:
            visible = [case for case in lab.cases if case.grade_id == grade_id and not case.hidden]
            if not visible or kernel.get(grade_id) is None:
                continue
            judged = book.points[grade_id] if all(case.passed for case in visible) else 0.0
            if abs(judged - kernel[grade_id]) > 1e-9:
                found.append(Review(grade_id, kernel[grade_id], judged))
    return found


def write_scores(gradebook: Gradebook, student: str, verdicts: list[LabVerdict]) -> None:
    """Set every judged grade cell's ``auto_score`` (creating the submission's rows if nbgrader made none)."""
    try:
        gradebook.find_submission(ASSIGNMENT, student)
    except MissingEntry:
        gradebook.update_or_create_student(student)
        gradebook.add_submission(ASSIGNMENT, student)
    notebooks = {lab.number: lab.notebook.removesuffix(".ipynb") for lab in LABS}
    for lab in verdicts:
        for grade_id, points in lab.scores.items():
            grade = gradebook.find_grade(grade_id, notebooks[lab.lab], ASSIGNMENT, student)
            grade.auto_score = points
            grade.needs_manual_grade = False
    gradebook.db.commit()


def score_submission(course: Course, student: str, isolation: sandbox.Isolation, slot: int = 0,
                     executed: Collection[str] | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    """Judge ``student``'s submitted package, write the scores, save and return the results (see the module).

    ``executed`` names the notebooks nbgrader executed (None: all); only their in-kernel scores are
    compared with the judge's. ``notes`` are kept with the results."""
    book = course_case_book(course)
    package = course.submitted(student) / PACKAGE
    verdicts = judge_submission(package, book, isolation, slot)
    with course.gradebook() as gradebook:
        kernel = kernel_scores(gradebook, student, book, executed)
        write_scores(gradebook, student, verdicts)
    results = {"student": student, "isolation": isolation.describe(),
               "labs": [lab.to_json() for lab in verdicts], "kernel": kernel,
               "review": [review.text() for review in reviews(verdicts, kernel, book)],
               "executed": None if executed is None else sorted(executed), "notes": list(notes)}
    path = results_path(course, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


def read_results(course: Course, student: str) -> dict[str, Any] | None:
    """The saved results of ``student`` (None when not graded yet)."""
    path = results_path(course, student)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def review_notes(course: Course, student: str) -> list[str]:
    """``review: lab3_trim_boundary (in-kernel 1, judge 0)``, when ``student``'s latest grading marked cells."""
    results = read_results(course, student)
    return [f"review: {', '.join(results['review'])}"] if results and results["review"] else []


def status_notes(course: Course, student: str) -> list[str]:
    """What a grade's reader must know about ``student``'s latest grading, one sentence each: labs whose
    judging hit a limit or a crash, the accidents noted while grading (``workbook.accidents``) and the
    cells marked for review; empty when nothing happened or the student is not graded yet."""
    results = read_results(course, student)
    if not results:
        return []
    notes = [f"lab {lab['lab']}: {lab['status']}" for lab in results["labs"] if lab["status"] != "graded"]
    return notes + list(results.get("notes", [])) + review_notes(course, student)
