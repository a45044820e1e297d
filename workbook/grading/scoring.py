"""The trusted step of autograde: the judge's points into the gradebook, the in-kernel score kept as a cross-check.

nbgrader executes the submitted notebooks (in the sandbox) for the student's feedback page and writes what
its kernel reported as each grade cell's autograded score. That score comes from the student's process, so
it is only a cross-check: this step then judges every lab (``workbook.grading.judge``), overwrites each autograded
cell's score with the judge's (``JudgeNotebook``, the last of nbgrader's autograde preprocessors, does it
lab by lab; ``workbook autograde`` then judges any lab whose notebook nbgrader could not execute), and
keeps both in ``COURSE/grading/results/STUDENT.json``:

- ``labs``: the judge's verdict per lab (every case's status, sentence and hint; each cell's points);
- ``kernel``: nbgrader's in-kernel score per grade cell (``null`` where the notebook was not executed);
- ``review``: the grade cells whose visible cases the kernel and the judge scored differently (both ran
  the same cases), which ``workbook autograde`` and ``workbook grades`` mark for an instructor's look;
- ``executed``: the notebooks nbgrader executed; ``notes``: what intake and nbgrader repaired or could not
  do (``workbook.course.intake``, ``workbook.course.accidents``), shown in the status, the grade tables and the CSV.

A notebook nbgrader could not execute (its kernel died, say) is autograded again without ``Execute``
(``workbook.pipeline.autograde``): ``JudgeNotebook.executed`` is then False and that lab's in-kernel scores, which
come from a notebook that never ran, are not compared with the judge's.

Hand-given scores are never touched: the judge writes ``auto_score`` only.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

from workbook.course.layout import ASSIGNMENT, PACKAGE, Course, configured_course
from workbook.errors import CourseError
from workbook.grading import sandbox
from workbook.grading.casebook import VISIBLE_JSON, CaseBook, case_book
from workbook.grading.judge import LabVerdict, judge_submission
from workbook.grading.results import read_results, save_results
from workbook.manifest import LABS, lab_of_notebook


def course_case_book(course: Course) -> CaseBook:
    """The cases a course grades with: the visible cases its ``source/`` package holds (what its students have),
    its hidden cases (``COURSE/grading/cases/<module>/hidden.py``) and the points of its source notebooks.

    Loaded once per process while none of those files changes (a grading worker judges five labs of every
    student it grades with the same book); an edited case file or notebook is read again."""
    package = course.source / PACKAGE
    files = sorted([package / VISIBLE_JSON, *course.cases.glob("*/*.py"), *course.source.glob("*.ipynb")])
    return _case_book(
        course.cases,
        package,
        course.source,
        tuple((str(path), path.stat().st_mtime_ns, path.stat().st_size) for path in files if path.exists()),
    )


@functools.lru_cache(maxsize=4)
def _case_book(cases: Path, package: Path, notebooks: Path, versions: tuple) -> CaseBook:
    """``case_book`` of these folders, cached by the ``versions`` (path, mtime, size) of their files."""
    return case_book(cases, package, notebooks)


@dataclass(frozen=True)
class Review:
    """A grade cell whose in-kernel score and judge's score (on the same visible cases) differ."""

    grade_id: str
    kernel: float
    judge: float

    def text(self) -> str:
        """``lab3_trim_boundary (in-kernel 1, judge 0)``."""
        return f"{self.grade_id} (in-kernel {self.kernel:g}, judge {self.judge:g})"


def kernel_scores(gradebook: Gradebook, student: str, book: CaseBook) -> dict[str, float | None]:
    """nbgrader's autograded score per grade cell of ``student`` (None where there is none)."""
    scores: dict[str, float | None] = dict.fromkeys(book.points)
    try:
        submission = gradebook.find_submission(ASSIGNMENT, student)
    except MissingEntry:
        return scores
    for notebook in submission.notebooks:
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
            in_kernel = kernel.get(grade_id)
            if not visible or in_kernel is None:
                continue
            judged = book.points[grade_id] if all(case.passed for case in visible) else 0.0
            if abs(judged - in_kernel) > 1e-9:
                found.append(Review(grade_id, in_kernel, judged))
    return found


def write_scores(gradebook: Gradebook, student: str, verdicts: list[LabVerdict]) -> None:
    """Set every judged grade cell's ``auto_score`` and, for an extra-credit cell, its ``extra_credit``
    (creating the submission's rows if nbgrader made none)."""
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
            if grade_id in lab.extra:
                grade.extra_credit = lab.extra[grade_id]
            grade.needs_manual_grade = False
    gradebook.db.commit()


def score_submission(
    course: Course,
    student: str,
    isolation: sandbox.Isolation,
    slot: int = 0,
    labs: tuple[int, ...] | None = None,
    executed: bool = True,
) -> dict[str, Any]:
    """Judge ``labs`` (default: all) of ``student``'s submitted package, write their scores, merge them into
    the saved results and return those (see the module). ``executed`` False: those labs' notebooks did not
    run, so their in-kernel scores are recorded as None and never compared."""
    book = course_case_book(course)
    package = course.submitted(student) / PACKAGE
    verdicts = judge_submission(package, book, isolation, slot, labs)
    with course.gradebook() as gradebook:
        kernel = kernel_scores(gradebook, student, book)
        write_scores(gradebook, student, verdicts)
    if not executed:
        unrun = {grade_id for lab in verdicts for grade_id in lab.scores}
        kernel = {grade_id: None if grade_id in unrun else score for grade_id, score in kernel.items()}
    earlier = (read_results(course, student) or {}) if labs is not None else {}
    judged = {lab.lab: lab.to_json() for lab in verdicts}
    merged = [judged.get(lab["lab"], lab) for lab in earlier.get("labs", []) if lab["lab"] not in judged]
    merged = sorted(merged + list(judged.values()), key=lambda lab: lab["lab"])
    kept = [text for text in earlier.get("review", []) if int(text.removeprefix("lab").split("_")[0]) not in judged]
    results = {
        "student": student,
        "isolation": isolation.describe(),
        "labs": merged,
        "kernel": {**earlier.get("kernel", {}), **kernel},
        "review": kept + [review.text() for review in reviews(verdicts, kernel, book)],
        "executed": earlier.get("executed"),
        "notes": earlier.get("notes", []),
    }
    return save_results(course, student, results)


def finish_results(
    course: Course,
    student: str,
    isolation: sandbox.Isolation,
    slot: int,
    executed: Collection[str],
    notes: Sequence[str],
) -> dict[str, Any]:
    """After nbgrader's pass over ``student``'s notebooks: judge the labs no ``JudgeNotebook`` judged (their
    notebook was missing or nbgrader could not open it), then record the notebooks nbgrader ``executed`` and
    the ``notes`` on what happened; return the results."""
    judged = {lab["lab"] for lab in (read_results(course, student) or {"labs": []})["labs"]}
    missing = tuple(lab.number for lab in LABS if lab.number not in judged)
    results = (
        score_submission(course, student, isolation, slot, missing, executed=False)
        if missing
        else read_results(course, student)
    )
    if results is None:
        raise CourseError(f"{student}: every lab was judged, but no results were saved")
    return save_results(course, student, {**results, "executed": sorted(executed), "notes": list(notes)})


class JudgeNotebook(NbGraderPreprocessor):
    """The last of nbgrader's autograde preprocessors (``workbook.course.layout``): once nbgrader has executed a lab's
    notebook and saved its in-kernel scores, the judge scores that lab and overwrites them. So every way of
    autograding (``workbook autograde``, the formgrader's button, ``nbgrader autograde``) gives the judge's
    points; the runners use the kernels' sandbox (``SandboxKernelManager.isolation`` and ``slot``)."""

    executed = Bool(
        True,
        config=True,
        help="False when nbgrader autogrades the notebook without running it "
        "(its in-kernel scores are then not compared with the judge's).",
    )

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        """Judge the lab of ``resources["nbgrader"]["notebook"]`` for its student; the notebook is unchanged."""
        from workbook.grading.isolation import course_isolation

        lab = lab_of_notebook(resources["nbgrader"]["notebook"])
        if lab is not None:
            course = configured_course(self.config)
            settings = self.config.SandboxKernelManager
            isolation = course_isolation(course, settings.get("isolation"))
            student = resources["nbgrader"]["student"]
            try:
                score_submission(course, student, isolation, settings.get("slot", 0), (lab,), executed=self.executed)
            except Exception:
                withhold_lab(course, student, lab)  # the in-kernel scores nbgrader saved never stand
                raise
        return nb, resources


def withhold_lab(course: Course, student: str, lab: int) -> None:
    """Score every grade cell of ``lab`` 0 for ``student``: what stands when the judge could not grade it
    (nbgrader then reports the submission as failed, and the instructor grades it again)."""
    book = course_case_book(course)
    scores = {grade_id: 0.0 for grade_id in book.points if grade_id.startswith(f"lab{lab}_")}
    extra = {grade_id: 0.0 for grade_id in scores if grade_id in book.extra}
    with course.gradebook() as gradebook:
        write_scores(gradebook, student, [LabVerdict(lab, (), scores, "not graded", "", extra)])
