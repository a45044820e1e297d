"""A Chinese and a Vietnamese course grade the demo's samples exactly as the English demo does (issue 27): the
same points, extra credit apart, and feedback pages in the edition's language."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from workbook.authoring.samples import ANSWERED_LABS, SAMPLES
from workbook.course.submit import submit
from workbook.pipeline.autograde import grade_with_progress
from workbook.pipeline.build import build
from workbook.pipeline.feedback import feedback, html_text
from workbook.pipeline.grades import read_grades
from workbook.pipeline.release import release

pytestmark = pytest.mark.slow

STUDENTS = ("partial", "buggy")
"""Labs left not started (partial: its labs 3 to 5 raise the edition's LabNotImplementedError) and a wrong lab."""
EXPECTED = {"partial": [8, 8, 0, 0, 0], "buggy": [8, 8, 2, 8, 8]}
"""The English demo's points per lab of these samples (tests/authoring/test_demo.py)."""
HEADINGS = {"zh": "实验 3：预算投影", "vi": "Bài thực hành 3: chiếu ngân sách"}
HIDDEN_FAILED = {"zh": "✗ 隐藏测试：", "vi": "✗ bài kiểm tra ẩn: "}
"""The fixed words of the page's summary of hidden tests that did not all pass."""
HINT = {"zh": "遍历在第一个放不下的交互处停止", "vi": "Việc duyệt dừng ở tương tác đầu tiên không vừa"}
"""A hidden case's hint of lab 3 (``labs/budget/hidden.py``) as the edition translates it."""


@pytest.mark.parametrize("language", ["zh", "vi"])
def test_an_edition_grades_the_samples_as_english(language: str, tmp_path: Path) -> None:
    course = build(tmp_path / "course", language=language)
    release(course)
    for student in STUDENTS:
        submit(course, student, SAMPLES[student](tmp_path / "samples" / student), answered_labs=ANSWERED_LABS[student])
    outcomes = grade_with_progress(course, list(STUDENTS), 2, 20, Console(file=StringIO()))
    assert [outcome.graded for outcome in outcomes] == [True, True]
    with course.gradebook() as gradebook:
        grades = {grade.student: grade for grade in read_grades(gradebook, list(STUDENTS))}
    assert {student: [lab.score for lab in grade.labs] for student, grade in grades.items()} == EXPECTED
    assert grades["partial"].labs[2].extra_credit == 0 and grades["buggy"].labs[2].extra_credit == 2
    report = feedback(course)
    assert not report.withheld
    page = html_text(course.feedback("partial") / "03_budget_projection.html")
    assert HEADINGS[language] in page
    assert "Grade cell: lab3_fixed_costs" in page  # the judge's results, as in English
    assert HIDDEN_FAILED[language] in page and "hidden test" not in page
    assert HINT[language] in page and "The walk stops at the first interaction" not in page
