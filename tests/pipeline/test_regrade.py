"""``workbook regrade`` (issue 23): after an instructor edits lab 3's hidden cases and generated variants of one
grade cell so that the buggy sample passes them, the recorded students are judged again without running any
notebook: only that cell changes, for that student only; the hand grade stays; the regenerated feedback shows
the new result."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from accident_submissions import DUE, LAB3, grade_by_hand, set_due_date_and_zero_penalty
from rich.console import Console

from workbook.authoring.samples import buggy, complete
from workbook.cli.main import main
from workbook.course.submit import submit
from workbook.errors import CourseError
from workbook.grading.results import read_results
from workbook.pipeline.autograde import autograde
from workbook.pipeline.build import build
from workbook.pipeline.feedback import html_text
from workbook.pipeline.grades import read_grades
from workbook.pipeline.regrade import regrade
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow

CELL = "lab3_copies_and_metadata"
"""A cell the buggy sample (lab 3 keeps ``messages[-3:]``) fails on hidden cases and generated variants only."""
EDIT = f'''

# An instructor's edit, after grading: the cell's cases that copy a trimmed context go.
_EDITED = {{"messages_are_copies", "model_change_skipped"}}
CASES = tuple(case for case in CASES if not (case.grade_id == "{CELL}" and case.name in _EDITED))
'''
VARIANTS_EDIT = f'''

_all_variants = variants


def variants(rng):
    return [case for case in _all_variants(rng) if case.grade_id != "{CELL}"]
'''


def scores(course, student: str) -> dict[str, float]:
    return {
        grade_id: points for lab in read_results(course, student)["labs"] for grade_id, points in lab["scores"].items()
    }


def failed_cases(course, student: str) -> set[str]:
    labs = read_results(course, student)["labs"]
    return {case["key"] for lab in labs for case in lab["cases"] if case["status"] != "passed"}


def hint(course, student: str, key: str) -> str:
    labs = read_results(course, student)["labs"]
    return next(case["hint"] for lab in labs for case in lab["cases"] if case["key"] == key)


def test_regrade_after_an_edited_case_changes_only_its_cell_and_keeps_hand_grades(tmp_path):
    course = build(tmp_path / "course")
    release(course)
    set_due_date_and_zero_penalty(course)
    for student, make in (("complete", complete), ("buggy", buggy)):
        submit(course, student, make(tmp_path / student), DUE - timedelta(hours=1))
    assert [outcome.status for outcome in autograde(course, jobs=2, timeout=20)] == ["graded", "graded"]
    grade_by_hand(course, "buggy", "lab1_written_strict_parser", "01_record_parsing", 2)
    before = {student: scores(course, student) for student in ("complete", "buggy")}
    assert before["buggy"][CELL] == 0 and before["complete"][CELL] > 0
    failing = {key for key in failed_cases(course, "buggy") if key.startswith(f"{CELL}/")}
    assert f"{CELL}/messages_are_copies" in failing
    autograded = {path: path.stat().st_mtime_ns for path in course.autograded("buggy").rglob("*.ipynb")}
    main(["feedback", "--course", str(course.root)])
    edited_hint = hint(course, "buggy", f"{CELL}/messages_are_copies")
    assert edited_hint in html_text(course.feedback("buggy") / f"{LAB3}.html")

    for name, edit in (("hidden.py", EDIT), ("variants.py", VARIANTS_EDIT)):
        path = course.cases / "budget" / name
        path.write_text(path.read_text() + edit)
    ended = regrade(course, jobs=2)

    assert [(item.student, item.status, item.changed) for item in ended] == [
        ("buggy", "graded", (CELL,)),
        ("complete", "graded", ()),
    ]
    after = {student: scores(course, student) for student in ("complete", "buggy")}
    assert after["complete"] == before["complete"]
    assert {cell: points for cell, points in after["buggy"].items() if points != before["buggy"][cell]} == {
        CELL: before["complete"][CELL]
    }
    assert not [key for key in failed_cases(course, "buggy") if key.startswith(f"{CELL}/")]
    with course.gradebook() as gradebook:
        (grades,) = read_grades(gradebook, ["buggy"])
        hand = gradebook.find_grade("lab1_written_strict_parser", "01_record_parsing", "compaction_labs", "buggy")
        assert hand.manual_score == 2, "the hand grade is kept"
    assert grades.labs[2].auto_score == sum(after["buggy"][cell] for cell in after["buggy"] if cell.startswith("lab3_"))
    assert {path: path.stat().st_mtime_ns for path in course.autograded("buggy").rglob("*.ipynb")} == autograded, (
        "no notebook was executed or rewritten"
    )

    main(["feedback", "--course", str(course.root)])
    assert edited_hint not in html_text(course.feedback("buggy") / f"{LAB3}.html"), "the page shows the new result"


def test_regrade_names_a_student_not_autograded(tmp_path):
    course = build(tmp_path / "course")
    release(course)
    submit(course, "ann", complete(tmp_path / "ann"), DUE)
    with pytest.raises(CourseError, match="not autograded yet, nothing to regrade: ann"):
        regrade(course, ["ann"])
    out = StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("rich.console.Console", lambda: Console(file=out, width=200))
        assert main(["regrade", "--course", str(course.root)]) != 0
