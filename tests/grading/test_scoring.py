"""What the gradebook holds when the judge cannot grade a lab: zero for that lab, never the in-kernel score."""

from __future__ import annotations

from workbook.course.layout import ASSIGNMENT
from workbook.grading.scoring import course_case_book, withhold_lab
from workbook.pipeline.build import build
from workbook.pipeline.release import release


def test_a_lab_the_judge_could_not_grade_scores_zero_and_the_others_keep_theirs(tmp_path):
    course = build(tmp_path / "course")
    release(course)
    book = course_case_book(course)
    with course.gradebook() as gradebook:
        gradebook.update_or_create_student("s1")
        submission = gradebook.add_submission(ASSIGNMENT, "s1")
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = grade.max_score  # what a rigged notebook run would have saved
        gradebook.db.commit()
    withhold_lab(course, "s1", 5)
    with course.gradebook() as gradebook:
        scores = {
            grade.name: grade.auto_score
            for notebook in gradebook.find_submission(ASSIGNMENT, "s1").notebooks
            for grade in notebook.grades
            if grade.name in book.points
        }
    assert {name: score for name, score in scores.items() if name.startswith("lab5_")} == {
        name: 0.0 for name in book.points if name.startswith("lab5_")
    }
    assert scores["lab4_parent_and_fields"] == 2.0
