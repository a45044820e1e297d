"""Grades read back from the gradebook: autograded and hand-graded points apart, pending answers named,
and the table and note built from them."""

from __future__ import annotations

from io import StringIO

import pytest
from nbgrader.api import Gradebook
from rich.console import Console

from workbook.cli.main import main
from workbook.pipeline.build import build
from workbook.pipeline.grades import grade_table, manual_text, points_text, read_grades
from workbook.pipeline.notes import manual_grading_note

ASSIGNMENT = "compaction_labs"
NOTEBOOK = "01_record_parsing"
STUDENTS = ["ada", "bob", "cy", "dan"]


def fill(gradebook: Gradebook) -> Gradebook:
    """One notebook: an autograder test worth 8, an extra-credit test (0 points) and a written answer worth 2
    (grade + solution cell). ada: tests pass, 1.5 extra credit, answer not graded yet; bob: 5.5 and a hand
    grade of 1.5 (flagged for review again, as autograding again does); cy: nothing, answer left as released;
    dan: autograde failed (rows, no scores)."""
    gradebook.add_assignment(ASSIGNMENT)
    gradebook.add_notebook(NOTEBOOK, ASSIGNMENT)
    gradebook.add_grade_cell("lab1_tests", NOTEBOOK, ASSIGNMENT, max_score=8, cell_type="code")
    gradebook.add_grade_cell("lab1_extra", NOTEBOOK, ASSIGNMENT, max_score=0, cell_type="code")
    gradebook.add_grade_cell("lab1_written", NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="markdown")
    gradebook.add_solution_cell("lab1_written", NOTEBOOK, ASSIGNMENT)
    for student in STUDENTS:
        gradebook.add_student(student)
        gradebook.add_submission(ASSIGNMENT, student)

    def grade(cell, student, **values):
        found = gradebook.find_grade(cell, NOTEBOOK, ASSIGNMENT, student)
        for name, value in values.items():
            setattr(found, name, value)

    grade("lab1_tests", "ada", auto_score=8, needs_manual_grade=False)
    grade("lab1_extra", "ada", auto_score=0, extra_credit=1.5, needs_manual_grade=False)
    grade("lab1_written", "ada", auto_score=None, needs_manual_grade=True)
    grade("lab1_tests", "bob", auto_score=5.5, needs_manual_grade=False)
    grade("lab1_written", "bob", auto_score=None, manual_score=1.5, needs_manual_grade=True)
    grade("lab1_tests", "cy", auto_score=0, needs_manual_grade=False)
    grade("lab1_written", "cy", auto_score=0, needs_manual_grade=False)  # unchanged answer: autograde gives 0
    gradebook.db.commit()
    return gradebook


@pytest.fixture
def gradebook(tmp_path):
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
        yield fill(gradebook)


def test_autograded_and_hand_graded_points_are_apart(gradebook):
    ada, bob, cy, dan = read_grades(gradebook, STUDENTS)
    assert [(lab.auto_score, lab.auto_max, lab.manual_score, lab.manual_max) for lab in ada.labs] == [(8, 8, 0, 2)]
    assert (ada.pending, ada.pending_points, ada.score, ada.max_score) == (1, 2, 8, 10)
    assert (ada.labs[0].extra_credit, ada.extra_credit, bob.extra_credit) == (1.5, 1.5, 0)
    assert ada.labs[0].pending == ("lab1_written",)
    assert (bob.auto_score, bob.manual_score, bob.pending, bob.score) == (5.5, 1.5, 0, 7)
    assert (cy.auto_score, cy.manual_score, cy.manual_max, cy.pending) == (0, 0, 2, 0)
    assert (dan.autograded, dan.pending, dan.score) == (False, 0, 0), "needs autograde, not a grader"
    assert [manual_text(grade) for grade in (ada, bob, cy, dan)] == ["?/2", "1.5/2", "0/2", "-"]


def test_the_table_shows_auto_and_manual_columns_and_rounded_means(gradebook):
    grades = read_grades(gradebook, STUDENTS)
    out = StringIO()
    Console(file=out, width=200).print(grade_table(grades, [NOTEBOOK], {"ada": "graded"}))
    lines = out.getvalue().splitlines()
    header = next(line for line in lines if "student" in line)
    assert header.split()[2:] == ["┃", "lab", "1", "┃", "manual", "┃", "total", "┃", "status", "┃"]
    cells = {line.split()[1]: line.split("│")[2:5] for line in lines if line.startswith("│")}
    assert [cell.strip() for cell in cells["ada"]] == ["8/8 +1.5", "?/2", "8/10 +1.5"]  # never 9.5/8
    assert [cell.strip() for cell in cells["bob"]] == ["5.5/8", "1.5/2", "7/10"]
    assert [cell.strip() for cell in cells["dan"]] == ["0/8", "-", "0/10"]
    assert [cell.strip() for cell in cells["mean"]] == ["4.5", "", "5"]  # (8 + 5.5 + 0) / 3, 15 / 3: dan left out
    caption = " ".join(out.getvalue().split())
    assert "?/N = N points not graded yet" in caption and "+N: extra credit, outside the points" in caption


def test_the_note_names_pending_answers_and_their_points(gradebook):
    grades = read_grades(gradebook, STUDENTS)
    assert manual_grading_note(grades, "the CSV counts them as 0") == (
        "1 hand-graded answer (2 points) not graded yet (students: ada); the CSV counts them as 0. Grade them in "
        "nbgrader's formgrader (docs: instructors/hand-grading.md) before `workbook feedback` and `workbook export`, "
        "or run those again afterwards."
    )
    assert manual_grading_note(grades, "these pages show them as 0", "and run `workbook feedback` again").endswith(
        "these pages show them as 0. Grade them in nbgrader's formgrader (docs: instructors/hand-grading.md) and run "
        "`workbook feedback` again."
    )
    assert manual_grading_note(grades[1:]) is None


def test_points_are_rounded_without_trailing_zeros():
    assert [points_text(value) for value in (8.0, 5.333333, 29.3333, 1.5, 0.004)] == ["8", "5.33", "29.33", "1.5", "0"]
    assert points_text(21.25, digits=1) == "21.2" and points_text(16 / 3, digits=1) == "5.3"


def test_workbook_grades_prints_the_table_and_the_note_without_grading(tmp_path, capsys):
    course = build(tmp_path / "course")
    assert main(["grades", "--course", str(course.root)]) == 1
    assert "no assignment 'compaction_labs'; run `workbook release` first" in " ".join(capsys.readouterr().out.split())
    with course.gradebook() as gradebook:
        fill(gradebook)
    assert main(["grades", "--course", str(course.root)]) == 0
    printed = capsys.readouterr().out
    rows = {
        line.split()[1]: [cell.strip() for cell in line.split("│")[2:5]]
        for line in printed.splitlines()
        if line.startswith("│")
    }
    assert rows == {
        "ada": ["8/8 +1.5", "?/2", "8/10 +1.5"],
        "bob": ["5.5/8", "1.5/2", "7/10"],
        "cy": ["0/8", "0/2", "0/10"],
        "dan": ["0/8", "-", "0/10"],
        "mean": ["4.5", "", "5"],
    }
    assert "note: 1 hand-graded answer (2 points) not graded yet (students: ada)" in " ".join(printed.split())
