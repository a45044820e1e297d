"""Scores read back from the gradebook, per student and per lab notebook, split into autograded and
hand-graded points, and their table.

Scores are nbgrader's: a cell's grade is its manual score when an instructor has given one, else its
autograder score, else 0; a notebook's score is the sum over its cells. A cell is *hand-graded* when
nbgrader cannot grade it: a "manually graded answer" (a grade cell that is also a solution cell, such
as each lab's written answer) or a task cell. Its grade ``needs_manual_grade`` until someone grades it
in nbgrader's formgrader (an answer left exactly as released is graded 0 by autograde and needs
nothing). Every other grade cell is an autograder test. A hand-graded cell is *pending* while its
grade ``needs_manual_grade`` and has no manual score (autograding again flags manually graded cells
for review, but their scores stand), in a notebook that was autograded: a submission whose autograde
failed has a gradebook row with no autograder score at all, and needs autograding, not a grader.

Extra credit (nbgrader's ``extra_credit`` of a grade, which nbgrader adds to its score) is kept apart: a
lab's points never include it, and a table shows it after them ("10/10 +6"), never as "16/10".

``workbook grades`` prints the table of every submission without grading anything (e.g. after hand
grading), with a status column of what happened while grading (``scoring.status_notes``) when anything did;
late penalties are first recomputed from the current scores (``workbook.course.late``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nbgrader.api import Grade, Gradebook, MissingEntry, Notebook, SubmittedNotebook
from rich.table import Table

from workbook.course.layout import ASSIGNMENT, Course
from workbook.manifest import lab_of_notebook


@dataclass(frozen=True)
class LabScore:
    """One notebook of one submission, in points: autograded ``auto_score``/``auto_max``, hand-graded
    ``manual_score``/``manual_max`` (pending cells count 0), the grade_ids of hand-graded cells that
    nobody has graded yet (``pending``, worth ``pending_points``), whether autograde scored it, and the
    ``extra_credit`` earned, which none of the scores include."""

    notebook: str
    auto_score: float
    auto_max: float
    manual_score: float
    manual_max: float
    pending: tuple[str, ...] = ()
    pending_points: float = 0.0
    autograded: bool = True
    extra_credit: float = 0.0

    @property
    def score(self) -> float:
        """Automatic plus hand-graded points scored (extra credit apart)."""
        return self.auto_score + self.manual_score

    @property
    def max_score(self) -> float:
        """Automatic plus hand-graded points possible."""
        return self.auto_max + self.manual_max


@dataclass(frozen=True)
class StudentGrades:
    """One student's submission: one ``LabScore`` per notebook (by name, the lab order), or none if not
    submitted; the late ``penalty`` in points (``workbook.course.late``) and how many seconds late it was."""

    student: str
    labs: tuple[LabScore, ...]
    penalty: float = 0.0
    seconds_late: float = 0.0

    @property
    def score(self) -> float:
        """Automatic plus hand-graded points scored (extra credit apart)."""
        return sum(lab.score for lab in self.labs)

    @property
    def extra_credit(self) -> float:
        """Extra credit earned in all labs, outside ``score``."""
        return sum(lab.extra_credit for lab in self.labs)

    @property
    def max_score(self) -> float:
        """Automatic plus hand-graded points possible."""
        return sum(lab.max_score for lab in self.labs)

    @property
    def total(self) -> float:
        """The score after the late penalty."""
        return max(0.0, self.score - self.penalty)

    @property
    def extra_after_penalty(self) -> float:
        """The extra credit left once the late penalty has taken every point of ``score`` (nbgrader's penalty
        is computed on its score, which counts extra credit: method ``zero`` takes it all)."""
        return max(0.0, self.extra_credit - max(0.0, self.penalty - self.score))

    @property
    def auto_score(self) -> float:
        """Points scored by the autograder tests."""
        return sum(lab.auto_score for lab in self.labs)

    @property
    def auto_max(self) -> float:
        """Points the autograder tests can give."""
        return sum(lab.auto_max for lab in self.labs)

    @property
    def manual_score(self) -> float:
        """Points given by hand so far (ungraded answers count as 0)."""
        return sum(lab.manual_score for lab in self.labs)

    @property
    def manual_max(self) -> float:
        """Points that are graded by hand."""
        return sum(lab.manual_max for lab in self.labs)

    @property
    def autograded(self) -> bool:
        """True when at least one lab notebook of the submission was autograded."""
        return any(lab.autograded for lab in self.labs)

    @property
    def pending(self) -> int:
        """How many hand-graded cells of this submission still need grading."""
        return sum(len(lab.pending) for lab in self.labs)

    @property
    def pending_points(self) -> float:
        """Points of the hand-graded cells that still need grading."""
        return sum(lab.pending_points for lab in self.labs)


def notebook_names(gradebook: Gradebook, assignment: str = ASSIGNMENT) -> list[str]:
    """The assignment's notebook names, sorted (the lab order, as the files are numbered)."""
    return sorted(notebook.name for notebook in gradebook.find_assignment(assignment).notebooks)


def hand_graded_cells(notebook: Notebook) -> set[str]:
    """The names of ``notebook``'s cells that nbgrader leaves to a human: manually graded answers
    (grade cells that are also solution cells) and task cells."""
    solutions = {cell.name for cell in notebook.solution_cells}
    return {cell.name for cell in notebook.grade_cells if cell.name in solutions} | {
        cell.name for cell in notebook.task_cells
    }


def extra_credit(grades: Iterable[Grade]) -> float:
    """The extra credit of ``grades``, which nbgrader counts in their ``score``."""
    return sum(grade.extra_credit or 0.0 for grade in grades)


def lab_score(submitted: SubmittedNotebook) -> LabScore:
    """The ``LabScore`` of one submitted notebook, from its grades."""
    manual_cells = hand_graded_cells(submitted.notebook)
    auto = [grade for grade in submitted.grades if grade.name not in manual_cells]
    manual = [grade for grade in submitted.grades if grade.name in manual_cells]
    autograded = not auto or any(grade.auto_score is not None for grade in auto)
    pending = sorted(
        (grade for grade in manual if autograded and grade.needs_manual_grade and grade.manual_score is None),
        key=lambda grade: grade.name,
    )
    return LabScore(
        submitted.name,
        auto_score=sum(grade.score for grade in auto) - extra_credit(auto),
        auto_max=sum(grade.max_score for grade in auto),
        manual_score=sum(grade.score for grade in manual) - extra_credit(manual),
        manual_max=sum(grade.max_score for grade in manual),
        pending=tuple(grade.name for grade in pending),
        pending_points=sum(grade.max_score for grade in pending),
        autograded=autograded,
        extra_credit=extra_credit(submitted.grades),
    )


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
        grades.append(
            StudentGrades(
                student,
                tuple(lab_score(by_name[name]) for name in names if name in by_name),
                penalty=submission.late_submission_penalty or 0.0,
                seconds_late=submission.total_seconds_late,
            )
        )
    return grades


def submitted_grades(gradebook: Gradebook, assignment: str = ASSIGNMENT) -> list[StudentGrades]:
    """The grades of every student with a submission of ``assignment``, by student id."""
    students = sorted(submission.student.id for submission in gradebook.find_assignment(assignment).submissions)
    return read_grades(gradebook, students, assignment)


def course_grades(course: Course) -> list[StudentGrades]:
    """``submitted_grades`` of ``course``'s gradebook."""
    with course.gradebook() as gradebook:
        return submitted_grades(gradebook)


def points_text(value: float, digits: int = 2) -> str:
    """``value`` rounded to ``digits`` decimals without trailing zeros: 8.0 -> "8", 5.3333 -> "5.33"."""
    return f"{round(value, digits):.{digits}f}".rstrip("0").rstrip(".")


def _mean(values: list[float]) -> str:
    return points_text(sum(values) / len(values), digits=1) if values else ""


def _fraction(score: float, max_score: float) -> str:
    return f"{points_text(score)}/{points_text(max_score)}"


def with_extra_credit(score: float, max_score: float, extra: float) -> str:
    """``score/max_score``, then the extra credit, if any, apart: "10/10 +6" (never "16/10")."""
    return _fraction(score, max_score) + (f" +{points_text(extra)}" if extra else "")


def manual_text(grade: StudentGrades) -> str:
    """The ``manual`` cell of a table row: "9/10" once graded; while answers are pending, their points
    as "?/N" after the graded part ("?/10", "3/6 ?/4"); "-" without hand-graded cells or autograde."""
    if not grade.manual_max or not grade.autograded:
        return "-"
    if not grade.pending:
        return _fraction(grade.manual_score, grade.manual_max)
    waiting = f"?/{points_text(grade.pending_points)}"
    graded_max = max(0.0, grade.manual_max - grade.pending_points)
    return f"{_fraction(grade.manual_score, graded_max)} {waiting}" if graded_max else waiting


TABLE_CAPTION = (
    "lab N: autograded points; manual: written answers graded by hand in nbgrader's formgrader, "
    "?/N = N points not graded yet (0 in total); +N: extra credit, outside the points; "
    "total: after the late penalty, if any (late)"
)


def grade_table(
    grades: list[StudentGrades], notebooks: list[str], status: dict[str, str] | None = None, title: str = "Grades"
) -> Table:
    """A rich table, one row per student: each lab notebook's autograded points (``lab N``: score/max),
    the hand-graded points (``manual``, see ``manual_text``), the ``total`` (pending answers count 0; after
    the late penalty, marked ``late``), each with its extra credit apart (``with_extra_credit``), and, with
    ``status``, a status column.

    ``status`` maps a student to a note (e.g. "graded", "failed: ..."); a trailing row gives the means
    (one decimal) over the autograded submissions. The manual mean is left empty while any answer is pending.
    """
    table = Table(title=title, caption=TABLE_CAPTION, show_footer=bool(grades))
    table.add_column("student", footer="mean")
    for name in notebooks:
        lab = lab_of_notebook(name)
        scores = [lab.auto_score for grade in grades for lab in grade.labs if lab.notebook == name and lab.autograded]
        table.add_column(f"lab {lab}" if lab else name, justify="right", footer=_mean(scores))
    submitted = [grade for grade in grades if grade.autograded]
    manual_mean = (
        ""
        if any(grade.pending for grade in submitted)
        else _mean([grade.manual_score for grade in submitted if grade.manual_max])
    )
    table.add_column("manual", justify="right", footer=manual_mean)
    table.add_column("total", justify="right", footer=_mean([grade.total for grade in submitted]))
    if status is not None:
        table.add_column("status")
    for grade in grades:
        by_name = {lab.notebook: lab for lab in grade.labs}
        cells = [
            with_extra_credit(by_name[name].auto_score, by_name[name].auto_max, by_name[name].extra_credit)
            if name in by_name
            else "-"
            for name in notebooks
        ]
        total = with_extra_credit(grade.total, grade.max_score, grade.extra_after_penalty) + (
            " late" if grade.penalty else ""
        )
        sums = [manual_text(grade), total] if grade.labs else ["-", "-"]
        table.add_row(grade.student, *cells, *sums, *([status.get(grade.student, "")] if status is not None else []))
    return table
