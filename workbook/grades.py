"""Scores read back from the gradebook, per student and per lab notebook, and their table.

Scores are nbgrader's: a notebook's score is the sum of its cells' grades (autograded and, once
an instructor has graded them, manual ones); ``max_score`` counts every graded cell. A manual
answer that nobody has graded yet scores 0 and the notebook ``needs_manual_grade``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry
from rich.table import Table

from .course import ASSIGNMENT
from .labs import lab_of_notebook


@dataclass(frozen=True)
class LabScore:
    """One notebook of one submission: points scored and possible, and whether manual grading is pending."""

    notebook: str
    score: float
    max_score: float
    needs_manual_grade: bool


@dataclass(frozen=True)
class StudentGrades:
    """One student's submission: one ``LabScore`` per notebook (gradebook order), or none if not submitted."""

    student: str
    labs: tuple[LabScore, ...]

    @property
    def score(self) -> float:
        return sum(lab.score for lab in self.labs)

    @property
    def max_score(self) -> float:
        return sum(lab.max_score for lab in self.labs)


def notebook_names(gradebook: Gradebook, assignment: str = ASSIGNMENT) -> list[str]:
    """The assignment's notebook names, sorted (the lab order, as the files are numbered)."""
    return sorted(notebook.name for notebook in gradebook.find_assignment(assignment).notebooks)


def read_grades(gradebook: Gradebook, students: Iterable[str], assignment: str = ASSIGNMENT) -> list[StudentGrades]:
    """The grades of ``students`` (in that order); a student without a submission gets no labs."""
    names = notebook_names(gradebook, assignment)
    grades = []
    for student in students:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            grades.append(StudentGrades(student, ()))
            continue
        by_name = {notebook.name: notebook for notebook in submission.notebooks}
        grades.append(StudentGrades(student, tuple(
            LabScore(name, by_name[name].score, by_name[name].max_score, by_name[name].needs_manual_grade)
            for name in names if name in by_name)))
    return grades


def _points(value: float) -> str:
    return f"{value:g}"


def grade_table(grades: list[StudentGrades], notebooks: list[str], status: dict[str, str] | None = None,
                title: str = "Grades") -> Table:
    """A rich table: one row per student, one column per lab notebook (``lab N``: score/max), the total and a status.

    ``status`` maps a student to a note (e.g. "graded", "failed: ..."); a trailing row gives each lab's mean.
    A ``*`` marks a notebook whose manual answer still needs grading.
    """
    table = Table(title=title, show_footer=bool(grades))
    table.add_column("student", footer="mean")
    for name in notebooks:
        scores = [lab.score for grade in grades for lab in grade.labs if lab.notebook == name]
        lab = lab_of_notebook(name)
        mean = _points(sum(scores) / len(scores)) if scores else ""
        table.add_column(f"lab {lab}" if lab else name, justify="right", footer=mean)
    totals = [grade.score for grade in grades if grade.labs]
    table.add_column("total", justify="right", footer=_points(sum(totals) / len(totals)) if totals else "")
    if status is not None:
        table.add_column("status")
    for grade in grades:
        by_name = {lab.notebook: lab for lab in grade.labs}
        cells = [f"{_points(by_name[name].score)}/{_points(by_name[name].max_score)}"
                 f"{'*' if by_name[name].needs_manual_grade else ''}" if name in by_name else "-"
                 for name in notebooks]
        total = f"{_points(grade.score)}/{_points(grade.max_score)}" if grade.labs else "-"
        table.add_row(grade.student, *cells, total, *([status.get(grade.student, "")] if status is not None else []))
    return table
