"""What grading one student returns: plain data, read from the scratch course the grading task worked in.

A ``GradeResult`` carries everything ``workbook autograde`` records for the student
(``workbook.pipeline.recording``): the gradebook rows nbgrader and the judge wrote in the scratch gradebook (per
notebook and cell: the autograded score, whether it needs a hand grade, the judge's extra credit, nbgrader's
automatic comment, the late penalty), the judge's results (``workbook.grading.results``), the autograded files,
the log, and the submission's fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nbgrader.api import MissingEntry

from workbook.course.layout import ASSIGNMENT, Course
from workbook.grading.results import read_results
from workbook.pipeline.bundle import Submission, files_below


@dataclass(frozen=True)
class CellGrade:
    """One grade cell's row as the grading wrote it: ``auto_score`` (points, None for a hand-graded cell),
    ``needs_manual_grade`` and ``extra_credit`` (points; the judge's, for a Going further cell)."""

    auto_score: float | None
    needs_manual_grade: bool
    extra_credit: float | None


@dataclass(frozen=True)
class GradeResult:
    """One student's grading: ``status`` ``graded`` or ``failed`` (the grading itself raised: nothing to record
    but the log); ``grades`` and ``comments`` by notebook name, then cell name; ``penalties`` (late points
    per notebook); ``timestamp`` (the submission's time in the gradebook, naive UTC); ``results`` (the judge's
    results file); ``autograded`` (path relative to ``autograded/STUDENT/compaction_labs`` to bytes);
    ``all_executed`` (nbgrader executed every notebook); ``seconds`` (wall time of the task)."""

    student: str
    fingerprint: str
    status: str
    log: str
    seconds: float
    all_executed: bool = True
    timestamp: datetime | None = None
    grades: dict[str, dict[str, CellGrade]] = field(default_factory=dict)
    comments: dict[str, dict[str, str | None]] = field(default_factory=dict)
    penalties: dict[str, float | None] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)
    autograded: dict[str, bytes] = field(default_factory=dict)


def failed_result(submission: Submission, log: str, seconds: float) -> GradeResult:
    """The result of a grading that raised: its ``log`` and time only."""
    return GradeResult(submission.student, submission.fingerprint, "failed", log, seconds)


def read_result(course: Course, submission: Submission, log: str, seconds: float, all_executed: bool) -> GradeResult:
    """The result of grading ``submission`` in the scratch ``course``: its gradebook rows, results and
    autograded files. Raises ``MissingEntry`` when the scratch gradebook has no submission of the student."""
    student = submission.student
    with course.gradebook() as gradebook:
        try:
            recorded = gradebook.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            raise MissingEntry(f"{student}: the grading recorded no submission") from None
        grades = {
            notebook.name: {
                grade.name: CellGrade(grade.auto_score, bool(grade.needs_manual_grade), grade.extra_credit)
                for grade in notebook.grades
            }
            for notebook in recorded.notebooks
        }
        comments = {
            notebook.name: {comment.name: comment.auto_comment for comment in notebook.comments}
            for notebook in recorded.notebooks
        }
        penalties = {notebook.name: notebook.late_submission_penalty for notebook in recorded.notebooks}
        timestamp = recorded.timestamp
    autograded = course.autograded(student)
    return GradeResult(
        student,
        submission.fingerprint,
        "graded",
        log,
        seconds,
        all_executed,
        timestamp,
        grades,
        comments,
        penalties,
        read_results(course, student) or {},
        files_below(autograded) if autograded.is_dir() else {},
    )
