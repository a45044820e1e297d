"""The one writer of a course's grades: a grading task's result recorded whole, or not at all.

Only the process running ``workbook autograde`` writes the course. For a graded result it first writes the
autograded notebooks (replacing the student's earlier ones by renames) and the log, then the gradebook rows in
one transaction through nbgrader's own classes (``SubmittedAssignment``, ``SubmittedNotebook``, ``Grade``,
``Comment``): the submission and its rows are created where missing, and each grade's automatic fields set.
Last, the judge's results with the submission's fingerprint: the mark that the grading is recorded. Hand
grades (``manual_score``, ``manual_comment``, an extra credit given by hand) are kept, and a cell graded by hand
before is marked for review again, as nbgrader's ``SaveAutoGrades`` does. Recording the same result twice
changes nothing.

A run that dies before that mark leaves the student unrecorded (``is_recorded``: the results' fingerprint is
the submission's), so the next run grades that student again and writes the same rows.
"""

from __future__ import annotations

import os
import shutil

from nbgrader.api import Comment, Grade, Gradebook, MissingEntry, SubmittedAssignment, SubmittedNotebook

from workbook.course.late import refresh_late_penalties
from workbook.course.layout import ASSIGNMENT, Course
from workbook.grading.results import read_results, results_path, save_results
from workbook.pipeline.bundle import Submission
from workbook.pipeline.grade_result import GradeResult
from workbook.pipeline.student_grading import log_path


def record(course: Course, result: GradeResult) -> None:
    """Record ``result`` in ``course`` (see the module). A failed result writes the log only and removes the
    student's results file, so no note of an earlier grading stands beside its status; its earlier
    gradebook rows stay as they were."""
    log = log_path(course, result.student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(result.log, encoding="utf-8")
    if result.status != "graded":
        results_path(course, result.student).unlink(missing_ok=True)
        return
    _replace_autograded(course, result)
    with course.gradebook() as gradebook:
        try:
            with gradebook.db.no_autoflush:  # the new rows are complete before anything is flushed
                _write_rows(gradebook, result)
            gradebook.db.commit()
        except BaseException:
            gradebook.db.rollback()
            raise
    refresh_late_penalties(course, [result.student])
    save_results(course, result.student, {**result.results, "fingerprint": result.fingerprint})


def is_recorded(course: Course, submission: Submission) -> bool:
    """True when ``course`` holds a whole recorded grading of exactly ``submission``."""
    results = read_results(course, submission.student)
    if not results or results.get("fingerprint") != submission.fingerprint:
        return False
    with course.gradebook() as gradebook:
        try:
            gradebook.find_submission(ASSIGNMENT, submission.student)
        except MissingEntry:
            return False
    return True


def _replace_autograded(course: Course, result: GradeResult) -> None:
    """Write ``result``'s autograded files beside the student's folder, then swap them in by renames."""
    target = course.autograded(result.student)
    fresh, old = target.with_name(f".{target.name}.new"), target.with_name(f".{target.name}.old")
    for folder in (fresh, old):
        shutil.rmtree(folder, ignore_errors=True)
    for name, data in result.autograded.items():
        path = fresh / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    fresh.mkdir(parents=True, exist_ok=True)
    if target.exists():
        os.rename(target, old)
    os.rename(fresh, target)
    shutil.rmtree(old, ignore_errors=True)


def _write_rows(gradebook: Gradebook, result: GradeResult) -> None:
    """Set ``result``'s rows in ``gradebook``'s session, creating what is missing; the caller commits."""
    student = result.student
    try:
        gradebook.find_student(student)
    except MissingEntry:
        gradebook.update_or_create_student(student)  # commits the student alone, as nbgrader's autograde does
    assignment = gradebook.find_assignment(ASSIGNMENT)
    try:
        submission = gradebook.find_submission(ASSIGNMENT, student)
    except MissingEntry:
        submission = SubmittedAssignment(assignment=assignment, student=gradebook.find_student(student))
        gradebook.db.add(submission)
    submission.timestamp = result.timestamp
    labs = result.results.get("labs", [])
    judged = {grade_id for lab in labs for grade_id in lab.get("scores", {})}
    extra = {grade_id for lab in labs for grade_id in lab.get("extra", {})}
    existing = {notebook.name: notebook for notebook in submission.notebooks}
    for notebook in assignment.notebooks:
        submitted = existing.get(notebook.name)
        if submitted is None:
            submitted = SubmittedNotebook(notebook=notebook, assignment=submission)
            gradebook.db.add(submitted)
        grades = {grade.name: grade for grade in submitted.grades}
        comments = {comment.name: comment for comment in submitted.comments}
        for cell in [*notebook.grade_cells, *notebook.task_cells]:
            grade = grades.get(cell.name)
            if grade is None:
                grade = Grade(cell_id=cell.id, notebook=submitted)
                gradebook.db.add(grade)
            written = result.grades.get(notebook.name, {}).get(cell.name)
            if written is None:
                continue
            grade.auto_score = written.auto_score
            grade.needs_manual_grade = written.needs_manual_grade or (
                grade.manual_score is not None and cell.name not in judged
            )
            if cell.name in extra:
                grade.extra_credit = written.extra_credit
        for cell in [*notebook.solution_cells, *notebook.task_cells]:
            comment = comments.get(cell.name)
            if comment is None:
                comment = Comment(cell_id=cell.id, notebook=submitted)
                gradebook.db.add(comment)
            if cell.name in result.comments.get(notebook.name, {}):
                comment.auto_comment = result.comments[notebook.name][cell.name]
        submitted.late_submission_penalty = result.penalties.get(notebook.name)
