"""``workbook regrade`` (issue 23): after an instructor edits one lab 3 cell's hidden cases (and drops its
generated variants) so that the buggy sample passes them, the recorded students are judged again without
running any notebook, with the seeds they were graded with: only that cell changes, for that student only; the
hand grade stays; the regenerated feedback shows the new result."""

from __future__ import annotations

from datetime import timedelta

import pytest
from accident_submissions import DUE, LAB3, grade_by_hand, set_due_date_and_zero_penalty

from workbook.authoring.samples import buggy, complete
from workbook.cli.main import main
from workbook.course.submit import submit
from workbook.errors import CourseError
from workbook.grading.results import read_results
from workbook.pipeline.autograde import autograde
from workbook.pipeline.build import build
from workbook.pipeline.feedback import html_text
from workbook.pipeline.regrade import regrade
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow

CELL = "lab3_copies_and_metadata"
CASE = f"{CELL}/messages_are_copies"
"""A hidden case the buggy sample (lab 3 keeps ``messages[-3:]``) fails: everything fits a window of 100."""
EDIT = """

# An instructor's edit, after grading: the copies case on the first entry alone, whose one message any
# trimming keeps; the metadata case dropped.
import dataclasses as _dataclasses

_ONE_MESSAGE = (example_entries()[:1], options(100))
CASES = tuple(
    _dataclasses.replace(case, args=_ONE_MESSAGE) if case.name == "messages_are_copies" else case
    for case in CASES
    if case.name != "model_change_skipped"
)
"""
VARIANTS_EDIT = f"""

# The same edit: the cell's generated variants dropped.
_all_variants = variants


def variants(rng):
    return [case for case in _all_variants(rng) if case.grade_id != "{CELL}"]
"""


def scores(course, student: str) -> dict[str, float]:
    return {
        grade_id: points for lab in read_results(course, student)["labs"] for grade_id, points in lab["scores"].items()
    }


def statuses(course, student: str) -> dict[str, str]:
    return {case["key"]: case["status"] for lab in read_results(course, student)["labs"] for case in lab["cases"]}


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
    before = {student: (scores(course, student), statuses(course, student)) for student in ("complete", "buggy")}
    assert before["buggy"][1][CASE] == "failed" and before["buggy"][0][CELL] == 0
    main(["feedback", "--course", str(course.root)])
    edited_hint = hint(course, "buggy", CASE)
    assert edited_hint in html_text(course.feedback("buggy") / f"{LAB3}.html"), "a failed hidden test's hint is shown"
    autograded = {path: path.stat().st_mtime_ns for path in course.autograded("buggy").rglob("*.ipynb")}

    for name, edit in (("hidden.py", EDIT), ("variants.py", VARIANTS_EDIT)):
        path = course.cases / "budget" / name
        path.write_text(path.read_text() + edit)
    ended = regrade(course, jobs=2)

    assert [(item.student, item.status, item.changed) for item in ended] == [
        ("buggy", "graded", (CELL,)),
        ("complete", "graded", ()),
    ]
    after = {student: (scores(course, student), statuses(course, student)) for student in ("complete", "buggy")}
    assert after["complete"][0] == before["complete"][0]
    changed = {cell: points for cell, points in after["buggy"][0].items() if points != before["buggy"][0][cell]}
    assert changed == {CELL: before["complete"][0][CELL]}, "only the edited cell's points change"
    kept = {key: status for key, status in before["buggy"][1].items() if not key.startswith(f"{CELL}/")}
    assert {key: after["buggy"][1][key] for key in kept} == kept, "every other case's result is as it was"
    assert after["buggy"][1][CASE] == "passed"
    with course.gradebook() as gradebook:
        hand = gradebook.find_grade("lab1_written_strict_parser", "01_record_parsing", "compaction_labs", "buggy")
        assert hand.manual_score == 2, "the hand grade is kept"
    assert {path: path.stat().st_mtime_ns for path in course.autograded("buggy").rglob("*.ipynb")} == autograded, (
        "no notebook was executed or rewritten"
    )
    main(["feedback", "--course", str(course.root)])
    page = html_text(course.feedback("buggy") / f"{LAB3}.html")
    assert edited_hint not in page, "the page shows the new result"
    assert "✓ hidden test: passed" in page.split(f"Grade cell: {CELL}")[1].split("Grade cell:")[0]


def test_regrade_names_a_student_not_autograded(tmp_path):
    course = build(tmp_path / "course")
    release(course)
    submit(course, "ann", complete(tmp_path / "ann"), DUE)
    with pytest.raises(CourseError, match="not autograded yet, nothing to regrade: ann"):
        regrade(course, ["ann"])
    assert main(["regrade", "--course", str(course.root)]) == 1
