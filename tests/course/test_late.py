"""``workbook.course.late``: before penalties are computed, each submission's time in the gradebook becomes its
trusted one, so a time nbgrader took from ``timestamp.txt`` (the formgrader's own autograde) never stands."""

from __future__ import annotations

from datetime import datetime

from nbgrader.api import Gradebook

from workbook.course.late import trust_submission_times
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.received import record_receipt

DUE = datetime(2026, 12, 15, 17, 0)


def test_the_time_received_replaces_the_students_own_in_the_gradebook(tmp_path):
    course = Course(tmp_path)
    for student in ("ada", "bob"):
        course.submitted(student).mkdir(parents=True)
    record_receipt(course, "ada", datetime(2026, 12, 15, 18, 0), "the exchange's change time")
    record_receipt(course, "bob", datetime(2026, 12, 15, 16, 0), "the exchange's change time")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_assignment(ASSIGNMENT, duedate=DUE)
        for student in ("ada", "bob", "cy"):
            gradebook.add_student(student)
            # as nbgrader's autograde records it from timestamp.txt: ada claims to be on time, cy has no folder
            gradebook.add_submission(ASSIGNMENT, student, timestamp=datetime(2026, 12, 15, 16, 30))
        submissions = gradebook.find_assignment(ASSIGNMENT).submissions
        trust_submission_times(course, submissions, None)
        gradebook.db.commit()
        times = {item.student.id: (item.timestamp, item.total_seconds_late) for item in submissions}
    assert times == {
        "ada": (datetime(2026, 12, 15, 18, 0), 3600.0),
        "bob": (datetime(2026, 12, 15, 16, 0), 0.0),
        "cy": (datetime(2026, 12, 15, 16, 30), 0.0),
    }


def test_only_the_students_named_are_touched(tmp_path):
    course = Course(tmp_path)
    course.submitted("ada").mkdir(parents=True)
    record_receipt(course, "ada", datetime(2026, 12, 15, 18, 0), "the LMS")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        gradebook.add_assignment(ASSIGNMENT, duedate=DUE)
        gradebook.add_student("ada")
        gradebook.add_submission(ASSIGNMENT, "ada", timestamp=datetime(2026, 12, 15, 16, 30))
        submissions = gradebook.find_assignment(ASSIGNMENT).submissions
        trust_submission_times(course, submissions, ["bob"])
        assert submissions[0].timestamp == datetime(2026, 12, 15, 16, 30)
