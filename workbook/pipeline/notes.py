"""The notes a pipeline command closes with: answers still to grade by hand, late penalties, review marks.

``autograde``, ``grades``, ``feedback`` and ``export`` end the same way (``print_closing_notes``), each saying what
the pending answers mean for what it wrote and when to run it again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console

from workbook.course.late import late_notes
from workbook.course.layout import Course
from workbook.grading.results import review_cells
from workbook.pipeline.grades import StudentGrades, points_text

AFTER_HAND_GRADING = "before `workbook feedback` and `workbook export`, or run those again afterwards"
"""When to grade the written answers, as the pipeline's earlier steps (autograde, grades) say it."""


def manual_grading_note(
    grades: Iterable[StudentGrades], consequence: str = "the totals count them as 0", when: str = AFTER_HAND_GRADING
) -> str | None:
    """One sentence: how many hand-graded answers (and points) of which students are not graded yet,
    ``consequence`` (what that means for the output at hand), and what to do ``when`` (e.g. "and run
    `workbook export` again"); None when none are pending."""
    waiting = [grade for grade in grades if grade.pending]
    if not waiting:
        return None
    cells = sum(grade.pending for grade in waiting)
    points = points_text(sum(grade.pending_points for grade in waiting))
    students = ", ".join(grade.student for grade in waiting)
    return (
        f"{cells} hand-graded answer{'s' if cells != 1 else ''} ({points} points) not graded yet "
        f"(students: {students}); {consequence}. Grade them in nbgrader's formgrader (docs: "
        f"instructors/hand-grading.md) {when}."
    )


def print_manual_grading_note(
    console: Console,
    grades: Iterable[StudentGrades],
    consequence: str = "the totals count them as 0",
    when: str = AFTER_HAND_GRADING,
) -> None:
    """Print ``manual_grading_note`` as a yellow "note:", if any answer of ``grades`` is pending."""
    note = manual_grading_note(grades, consequence, when)
    if note:
        console.print(f"[yellow]note:[/] {note}", highlight=False)


def print_late_notes(console: Console, course: Course, grades: Iterable) -> None:
    """Print ``late_notes`` as yellow "late:" lines."""
    for note in late_notes(course, grades):
        console.print(f"[yellow]late:[/] {note}", highlight=False)


REVIEW_NOTE = (
    "the notebook's in-kernel score and the judge's differ on the same visible cases (the gradebook "
    "holds the judge's; a bug in another lab that the notebook runs, or a student's code tampering with "
    "the notebook, shows here)"
)


def print_review_notes(console: Any, course: Course, students: list[str]) -> None:
    """One line per student with cells marked for review, and what a review mark means."""
    marked = {student: cells for student in students if (cells := review_cells(course, student))}
    for student, cells in marked.items():
        console.print(f"[yellow]review {student}:[/] {', '.join(cells)}", highlight=False)
    if marked:
        console.print(f"review: {REVIEW_NOTE}", highlight=False)


def print_closing_notes(
    console: Console,
    course: Course,
    grades: list[StudentGrades],
    consequence: str = "the totals count them as 0",
    when: str = AFTER_HAND_GRADING,
    review: bool = True,
) -> None:
    """The closing notes of a pipeline command: hand-graded answers still pending (``consequence``: what they
    mean for this command's output; ``when``: when to grade them), the late penalties applied, and, with
    ``review``, the students marked for review."""
    print_manual_grading_note(console, grades, consequence, when)
    print_late_notes(console, course, grades)
    if review:
        print_review_notes(console, course, [grade.student for grade in grades])
