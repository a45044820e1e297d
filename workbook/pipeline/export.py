"""``workbook export`` (and ``nbgrader export`` in a workbook course): grades as CSV, one column per lab.

``LabCsvExportPlugin`` is an nbgrader ``ExportPlugin``. Unlike nbgrader's own CSV plugin, which
joins fields with commas by hand, it writes through the ``csv`` module, so a name such as
``"Lovelace, Ada"`` stays one (quoted) field. One row per assignment and student in the
gradebook (students sorted by id), nbgrader's columns plus one score column per notebook (``01_record_parsing`` ...),
then two marker columns: ``ungraded_answers`` (how many hand-graded answers nobody has graded yet: they count
0 in ``score`` until then) and ``grading_notes`` (what happened while grading: a notebook not executed, a
copied, deleted or edited cell, a renamed or missing notebook, a review mark; ``scoring.status_notes``).
A student without a submission gets 0 everywhere and an empty timestamp, as in nbgrader.

Extra credit, which nbgrader counts in its scores, is kept apart as the table shows it ("10/10 +6"): no
score column includes it; ``extra_credit`` holds the submission's and ``NOTEBOOK extra credit`` each notebook's.

In a workbook course the late penalties are first recomputed from the current scores (``workbook.course.late``), so
``late_submission_penalty`` and ``score`` include hand-graded points given since the last autograde.
"""

from __future__ import annotations

import csv
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from workbook.course.late import refresh_late_penalties
from workbook.course.layout import Course, CourseError, configured_course
from workbook.grading.results import status_notes
from workbook.pipeline.grades import extra_credit, read_grades

BASE_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
    "extra_credit",
]
EXTRA_CREDIT_COLUMN = "{} extra credit"
"""A notebook's extra-credit column, by notebook name."""
MARKER_COLUMNS = ["ungraded_answers", "grading_notes"]


class LabCsvExportPlugin(ExportPlugin):
    """Export grades to ``to`` (default ``grades.csv``) with the ``csv`` module and per-notebook score columns."""

    def export(self, gradebook: Gradebook) -> None:
        """Write the grades as CSV to ``self.to`` (default grades.csv): a row per student, a column per lab,
        the marker columns (see the module)."""
        course = configured_course(self.config)
        if course.config_file.is_file():
            refresh_late_penalties(course)
        assignments = [
            assignment
            for assignment in gradebook.assignments
            if not self.assignment or assignment.name in map(str, self.assignment)
        ]
        students = sorted(
            (student for student in gradebook.students if not self.student or student.id in map(str, self.student)),
            key=lambda student: student.id,
        )
        notebooks = sorted({notebook.name for assignment in assignments for notebook in assignment.notebooks})
        dest = self.to or "grades.csv"
        self.log.info("Exporting grades to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as handle:
            extra = [EXTRA_CREDIT_COLUMN.format(name) for name in notebooks]
            writer = csv.DictWriter(handle, fieldnames=BASE_COLUMNS + notebooks + extra + MARKER_COLUMNS)
            writer.writeheader()
            for assignment in assignments:
                for student in students:
                    row = self.row(gradebook, assignment, student, notebooks)
                    grades = read_grades(gradebook, [student.id], assignment.name)[0]
                    notes = status_notes(course, student.id) if course.config_file.is_file() else []
                    writer.writerow({**row, "ungraded_answers": grades.pending, "grading_notes": "; ".join(notes)})

    @staticmethod
    def row(gradebook: Gradebook, assignment, student, notebooks: list[str]) -> dict[str, object]:
        """One CSV row: nbgrader's fields for this submission, then each notebook's score and extra credit
        ('' if not in it), extra credit apart from every score."""
        row: dict[str, object] = {
            "assignment": assignment.name,
            "duedate": assignment.duedate or "",
            "student_id": student.id,
            "last_name": student.last_name or "",
            "first_name": student.first_name or "",
            "email": student.email or "",
            "max_score": assignment.max_score,
        }
        own = {notebook.name for notebook in assignment.notebooks}
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0, extra_credit=0.0)
            row.update(
                {
                    column.format(name): 0.0 if name in own else ""
                    for name in notebooks
                    for column in ("{}", EXTRA_CREDIT_COLUMN)
                }
            )
            return row
        penalty = submission.late_submission_penalty or 0.0
        extra = {notebook.name: extra_credit(notebook.grades) for notebook in submission.notebooks}
        raw_score = submission.score - sum(extra.values())
        row.update(
            timestamp=submission.timestamp or "",
            raw_score=raw_score,
            late_submission_penalty=penalty,
            score=max(0.0, raw_score - penalty),
            extra_credit=sum(extra.values()),
        )
        scores = {notebook.name: notebook.score - extra[notebook.name] for notebook in submission.notebooks}
        row.update({name: scores.get(name, 0.0) if name in own else "" for name in notebooks})
        row.update(
            {EXTRA_CREDIT_COLUMN.format(name): extra.get(name, 0.0) if name in own else "" for name in notebooks}
        )
        return row


def export(course: Course, to: Path | None = None) -> Path:
    """Write the course's grades as CSV to ``to`` (default ``COURSE/grades.csv``); return the path.

    Raises ``CourseError`` if the course is not built.
    """
    dest = Path(to or course.root / "grades.csv").resolve()
    config = course.config()
    config.ExportPlugin.to = str(dest)
    plugin = LabCsvExportPlugin(config=config)
    with course.gradebook() as gradebook:
        if not list(gradebook.assignments):
            raise CourseError("the gradebook has no assignment yet; run `workbook release` first")
        plugin.export(gradebook)
    return dest
