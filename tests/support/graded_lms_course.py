"""A graded course for the LMS tests, its gradebook filled by hand as autograde and the formgrader leave it (no
notebook runs), and the LMS course's members."""

from __future__ import annotations

from datetime import datetime, timedelta

from nbgrader.plugins import LateSubmissionPlugin

from workbook.course.layout import ASSIGNMENT
from workbook.pipeline.build import build


class HalfOff(LateSubmissionPlugin):
    """A late rule for the tests: a late notebook loses half its score (nbgrader's rules are none or all)."""

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        return score / 2


DUE = datetime(2026, 3, 1, 12, 0, 0)
LAB1, LAB2 = "01_record_parsing", "02_interaction_grouping"
MEMBERS = [
    {"user_id": "lti-user-ada", "lis_person_sourcedid": "ada", "name": "Ada Lovelace", "roles": ["Learner"]},
    {"user_id": "lti-user-bob", "lis_person_sourcedid": "bob", "name": "Bob Late", "roles": ["Learner"]},
    {"user_id": "lti-user-dee", "lis_person_sourcedid": "dee", "name": "Dee Teacher", "roles": ["Instructor"]},
]
"""cy has a submission but is no member of the LMS course; dee is a member without a submission."""


def graded_course(root):
    """A built course whose gradebook is filled by hand, as autograde and the formgrader leave it (no notebook runs).

    Lab 1: tests worth 8, a written answer worth 2; lab 2: tests worth 8. The late rule takes half a late notebook's
    score. ada (on time): 8 and her answer not graded yet, 6. bob (an hour late): 6 and 2 by hand, 4. cy: 2, 8."""
    course = build(root / "course")
    with course.config_file.open("a", encoding="utf-8") as config:
        config.write('\nc.AssignLatePenalties.plugin_class = "graded_lms_course.HalfOff"\n')
    with course.gradebook() as gradebook:
        gradebook.add_assignment(ASSIGNMENT, duedate=DUE)
        for notebook in (LAB1, LAB2):
            gradebook.add_notebook(notebook, ASSIGNMENT)
            gradebook.add_grade_cell(f"{notebook}_tests", notebook, ASSIGNMENT, max_score=8, cell_type="code")
        gradebook.add_grade_cell("lab1_written", LAB1, ASSIGNMENT, max_score=2, cell_type="markdown")
        gradebook.add_solution_cell("lab1_written", LAB1, ASSIGNMENT)
        for student, late in (("ada", -1), ("bob", 1), ("cy", -1)):
            gradebook.add_student(student)
            gradebook.add_submission(ASSIGNMENT, student, timestamp=DUE + timedelta(hours=late))

        def grade(cell, notebook, student, **values):
            found = gradebook.find_grade(cell, notebook, ASSIGNMENT, student)
            for name, value in values.items():
                setattr(found, name, value)

        for student, lab1, lab2 in (("ada", 8, 6), ("bob", 6, 4), ("cy", 2, 8)):
            grade(f"{LAB1}_tests", LAB1, student, auto_score=lab1, needs_manual_grade=False)
            grade(f"{LAB2}_tests", LAB2, student, auto_score=lab2, needs_manual_grade=False)
        grade("lab1_written", LAB1, "ada", auto_score=None, needs_manual_grade=True)
        grade("lab1_written", LAB1, "bob", auto_score=None, manual_score=2, needs_manual_grade=False)
        grade("lab1_written", LAB1, "cy", auto_score=0, needs_manual_grade=False)
        gradebook.db.commit()
    return course
