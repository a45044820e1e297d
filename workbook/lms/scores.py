"""The scores the LMS gets, read from the gradebook (never written to it), for ``workbook lms push`` and the LMS
gradebook files of ``workbook export --format canvas|moodle``.

- A line item per lab notebook (``Target``: resource id ``compaction_labs/01_record_parsing``, label ``Lab 1: record
  parsing``, the notebook's points), or one for the whole assignment (resource id ``compaction_labs``).
- Per student with a submission and per line item a ``Score``: the points after the late penalty (a lab's score less
  its notebook's penalty; the total less the submission's, as ``workbook export``'s ``score`` column), extra credit
  apart as in the export; ``activityProgress`` ``Submitted``; ``gradingProgress`` ``Pending`` while a written answer
  is still to grade by hand, ``FullyGraded`` after; a comment naming what is pending and the late penalty. The
  penalty is nbgrader's, from the course's late rule on the current scores (``workbook.course.late.late_penalty``).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbook.course.late import late_penalty
from workbook.course.layout import ASSIGNMENT, Course, require_released
from workbook.errors import CourseError
from workbook.manifest import lab_of_notebook, lab_record
from workbook.pipeline.grades import StudentGrades, points_text, submitted_grades


@dataclass(frozen=True)
class Score:
    """One score as AGS posts it: points (``score_given`` of ``score_maximum``), the progress words
    (``activity_progress`` e.g. ``Submitted``; ``grading_progress`` ``Pending`` or ``FullyGraded``), a comment."""

    score_given: float
    score_maximum: float
    activity_progress: str
    grading_progress: str
    comment: str = ""


@dataclass(frozen=True)
class Target:
    """A line item the tool keeps: its ``resource_id`` (how it is found again), ``label`` and ``score_maximum``."""

    resource_id: str
    label: str
    score_maximum: float


TOTAL_LABEL = "Compaction labs"
"""The label of the one line item ``--total`` posts to."""


@dataclass(frozen=True)
class Planned:
    """What a push means for one student and one line item: the ``score`` to post, or None and the ``note`` why not."""

    student: str
    target: Target
    score: Score | None
    note: str = ""


def lab_label(notebook: str) -> str:
    """A lab notebook's line item label: ``Lab 1: record parsing`` (the notebook's name for any other)."""
    number = lab_of_notebook(notebook)
    return f"Lab {number}: {lab_record(number).title}" if number else notebook


def _points(value: float) -> float:
    return round(value, 4)


def _comment(pending: int, pending_points: float, penalty: float) -> str:
    parts = []
    if pending:
        answers = "answer" if pending == 1 else "answers"
        parts.append(f"{pending} written {answers} ({points_text(pending_points)} points) still to grade by hand")
    if penalty:
        parts.append(f"late penalty {points_text(penalty)} points")
    return "; ".join(parts)


def _score(given: float, maximum: float, pending: int, pending_points: float, penalty: float) -> Score:
    return Score(
        score_given=_points(max(0.0, given - penalty)),
        score_maximum=_points(maximum),
        activity_progress="Submitted",
        grading_progress="Pending" if pending else "FullyGraded",
        comment=_comment(pending, pending_points, penalty),
    )


def planned_scores(course: Course, lab: int | None = None, total: bool = False) -> list[Planned]:
    """The scores a push posts (see the module), per line item then per student (by id); reads the gradebook only.

    Raises ``CourseError`` before ``workbook release`` and naming ``lab`` when no notebook is that lab's.
    """
    require_released(course)
    with course.gradebook() as gradebook:
        assignment = gradebook.find_assignment(ASSIGNMENT)
        maxima = {notebook.name: notebook.max_score for notebook in assignment.notebooks}
        assignment_max = assignment.max_score
        grades = submitted_grades(gradebook)
    if total:
        targets = [Target(ASSIGNMENT, TOTAL_LABEL, assignment_max)]
    else:
        names = sorted(name for name in maxima if lab is None or lab_of_notebook(name) == lab)
        if not names:
            raise CourseError(f"--lab {lab}: no notebook of the assignment is lab {lab}'s")
        targets = [Target(f"{ASSIGNMENT}/{name}", lab_label(name), maxima[name]) for name in names]
    plan = []
    for target in targets:
        for grade in grades:
            plan.append(_planned(course, grade, target, total))
    return plan


def _planned(course: Course, grade: StudentGrades, target: Target, total: bool) -> Planned:
    penalties = {
        lab.notebook: late_penalty(course, grade.student, lab.score + lab.extra_credit, grade.seconds_late)
        for lab in grade.labs
    }
    if total:
        if not grade.autograded:
            return Planned(grade.student, target, None, "not autograded yet")
        score = _score(grade.score, grade.max_score, grade.pending, grade.pending_points, sum(penalties.values()))
        return Planned(grade.student, target, score)
    notebook = target.resource_id.removeprefix(f"{ASSIGNMENT}/")
    lab = next((lab for lab in grade.labs if lab.notebook == notebook), None)
    if lab is None or not lab.autograded:
        return Planned(grade.student, target, None, "not autograded yet")
    score = _score(lab.score, lab.max_score, len(lab.pending), lab.pending_points, penalties[notebook])
    return Planned(grade.student, target, score)


def describe(planned: Planned) -> str:
    """One line for ``planned``: ``ada, Lab 1: record parsing: 7/10 FullyGraded (late penalty 3 points)``."""
    if planned.score is None:
        return f"{planned.student}, {planned.target.label}: nothing ({planned.note})"
    score = planned.score
    text = f"{planned.student}, {planned.target.label}: {points_text(score.score_given)}/"
    text += f"{points_text(score.score_maximum)} {score.grading_progress}"
    return text + (f" ({score.comment})" if score.comment else "")
