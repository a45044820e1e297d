"""``overview_page``: one student's five labs on one page, the grade table's sums, what failed with its hints.
``test_demo.py`` checks the pages of real submissions against the demo's grade table."""

from __future__ import annotations

import re

from workbook.manifest import LABS
from workbook.pipeline.feedback_overview import failed_lines, overview_page
from workbook.pipeline.grades import LabScore, StudentGrades

NOTEBOOKS = [lab.notebook.removesuffix(".ipynb") for lab in LABS]
GRADES = StudentGrades(
    "<b>ada</b>",
    (
        LabScore(NOTEBOOKS[0], 8, 8, 0, 2, pending=("lab1_written",), pending_points=2, extra_credit=2),
        LabScore(NOTEBOOKS[1], 6, 8, 2, 2),
        *(LabScore(name, 0, 8, 0, 2) for name in NOTEBOOKS[2:]),
    ),
    penalty=1.0,
)


def case(key: str, status: str, hidden: bool = False, message: str = "", hint: str = "") -> dict:
    grade_id, _ = key.split("/")
    return {"key": key, "grade_id": grade_id, "hidden": hidden, "status": status, "call": "f()"} | {
        "message": message,
        "hint": hint,
    }


RESULTS = {
    "labs": [
        {"lab": 1, "cases": [case("lab1_parse/good", "passed"), case("lab1_parse/h1", "passed", hidden=True)]},
        {
            "lab": 2,
            "cases": [
                case("lab2_pairs/two", "failed", message="called f(), got [1], expected [1, 2]"),
                case("lab2_pairs/h1", "passed", hidden=True, hint="Results pair with their calls."),
                case("lab2_pairs/h2", "failed", hidden=True, hint="A result without its call is refused."),
                case("lab2_order/one", "passed"),
            ],
        },
        {
            "lab": 3,
            "cases": [
                case("lab3_fixed/a", "not started", message="Lab 3: build_context() is not implemented yet"),
                case("lab3_fixed/b", "not started", message="Lab 3: build_context() is not implemented yet"),
            ],
        },
    ]
}


def test_what_failed_is_shown_cell_by_cell_hidden_cases_only_together_and_a_lab_not_started_once():
    assert failed_lines(RESULTS["labs"][0]["cases"]) == []
    assert failed_lines(RESULTS["labs"][1]["cases"]) == [
        "lab2_pairs:",
        "✗ two: called f(), got [1], expected [1, 2]",
        "✗ hidden tests: not all 2 passed; what they check:",
        "  - Results pair with their calls.",
        "  - A result without its call is refused.",
    ]
    assert failed_lines(RESULTS["labs"][2]["cases"]) == ["Lab 3: build_context() is not implemented yet"]


def test_the_page_sums_the_labs_as_the_grade_table_and_escapes_every_text():
    page = overview_page(GRADES, RESULTS, pages=NOTEBOOKS[:4])
    assert "<b>ada</b>" not in page and "Feedback for &lt;b&gt;ada&lt;/b&gt;: the five labs" in page
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", page)[1:]]
    assert rows[0] == [f'<a href="compaction_labs/{NOTEBOOKS[0]}.html">1. record parsing</a>', "8/8", "?/2", "+2"]
    assert rows[1][1:] == ["6/8", "2/2", ""]
    assert rows[4][0] == "5. repeated resumption", "no page, no link"
    assert rows[-1] == ["total", "14/40", "2/8 ?/2", "+2"]
    # the grade table's total: 16 of 50 less the late penalty of 1, extra credit apart
    assert "<p id='score'>Score: 15/50 +2 (after a late penalty of 1)</p>" in page
    assert "Written answers not graded yet: 1 (2 points)" in page
    assert "✗ two: called f(), got [1], expected [1, 2]" in page and "pairs/h2" not in page, "never which hidden case"


def test_the_pages_fixed_words_follow_the_edition():
    page = overview_page(GRADES, RESULTS, "zh")
    assert "&lt;b&gt;ada&lt;/b&gt; 的反馈：五个实验" in page and "得分：15/50 +2" in page
