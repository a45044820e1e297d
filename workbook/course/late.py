"""Late penalties recomputed whenever grades are read, so that no point escapes them.

nbgrader computes a notebook's late penalty once, while it autogrades that notebook (its
``AssignLatePenalties`` preprocessor with the configured plugin, e.g. ``c.LateSubmissionPlugin.penalty_method
= "zero"`` in the course's ``nbgrader_config.py``), from the score the notebook has at that moment. Points
given by hand afterwards, and the judge's scores (written after nbgrader), would escape it until the next
autograde. ``refresh_late_penalties`` runs that same nbgrader preprocessor again, with the course config,
for every notebook of each late submission (and of any that carries a penalty, e.g. after the due date
moved) on the notebook's current score, after setting each submission's time in the gradebook to its trusted
one (``workbook.course.received``: nbgrader's formgrader, autograding on its own, reads ``timestamp.txt``).
``workbook autograde`` (after the judge), ``grades``, ``export`` and ``feedback`` call it before they read the
gradebook, and ``print_late_notes`` says what it applied.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable

from nbformat.v4 import new_notebook
from nbgrader.api import MissingEntry
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import AssignLatePenalties

from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.received import submission_time

_QUIET = logging.getLogger("workbook.course.late")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def refresh_late_penalties(course: Course, students: Collection[str] | None = None) -> list[str]:
    """Recompute the late penalty of every notebook of each late (or penalised) submission of ``students``
    (default: all) from its current score, with nbgrader's ``AssignLatePenalties`` and the course config;
    return the students whose penalties were recomputed. Nothing happens before ``workbook release``."""
    config = course.config()
    db_url = course.coursedir().db_url
    with course.gradebook() as gradebook:
        try:
            submissions = gradebook.find_assignment(ASSIGNMENT).submissions
        except MissingEntry:
            return []
        trust_submission_times(course, submissions, students)
        gradebook.db.commit()
        due = {
            submission.student.id: [notebook.name for notebook in submission.notebooks]
            for submission in submissions
            if (students is None or submission.student.id in students)
            and (
                submission.total_seconds_late > 0
                or any(notebook.late_submission_penalty for notebook in submission.notebooks)
            )
        }
    for student, notebooks in sorted(due.items()):
        for notebook in notebooks:
            resources = {
                "nbgrader": {"notebook": notebook, "assignment": ASSIGNMENT, "student": student, "db_url": db_url}
            }
            AssignLatePenalties(config=config, log=_QUIET).preprocess(new_notebook(), resources)
    return sorted(due)


def trust_submission_times(course: Course, submissions: Iterable, students: Collection[str] | None) -> None:
    """Set the time of each of ``submissions`` (nbgrader's ``SubmittedAssignment``) of ``students`` (default: all)
    to its trusted time (``received.submission_time``); one without a submission folder keeps its time. The
    caller commits."""
    for submission in submissions:
        if students is not None and submission.student.id not in students:
            continue
        received = submission_time(course, submission.student.id)
        if received is not None and submission.timestamp != received.time:
            submission.timestamp = received.time


def penalty_rule(course: Course) -> str:
    """The course's late rule in words: ``LateSubmissionPlugin, penalty method 'zero'`` or the plugin's name."""
    config = course.config()
    plugin = config.AssignLatePenalties.get("plugin_class", LateSubmissionPlugin)
    name = plugin if isinstance(plugin, str) else f"{plugin.__module__}.{plugin.__name__}"
    if not name.endswith(".LateSubmissionPlugin"):
        return name
    method = config.LateSubmissionPlugin.get("penalty_method", "none")
    return f"nbgrader's LateSubmissionPlugin, penalty method {method!r}"


def late_notes(course: Course, grades: Iterable) -> list[str]:
    """One sentence per late student of ``grades`` (``StudentGrades``) with a penalty: how late, how many
    points, under which rule."""
    rule = penalty_rule(course)
    return [
        f"{grade.student} submitted {grade.seconds_late:g} s after the due date: late penalty "
        f"{grade.penalty:g} points ({rule}), applied to the current scores, hand-graded ones included"
        for grade in grades
        if grade.penalty
    ]


def late_penalty(course: Course, student: str, score: float, seconds_late: float) -> float:
    """The late penalty (points) nbgrader's ``AssignLatePenalties`` would give a notebook of ``student`` scoring
    ``score`` (nbgrader's score: extra credit included) submitted ``seconds_late`` seconds late, with the course
    config's plugin, kept within 0 and ``score`` as nbgrader keeps it. Computed only: nothing is written (what
    ``refresh_late_penalties`` would store, for a reader that must not write the gradebook)."""
    if seconds_late <= 0:
        return 0.0
    assign = AssignLatePenalties(config=course.config(), log=_QUIET)
    assign.init_plugin()
    penalty = assign.plugin_inst.late_submission_penalty(student, score, seconds_late)
    return 0.0 if penalty is None else min(max(float(penalty), 0.0), score)
