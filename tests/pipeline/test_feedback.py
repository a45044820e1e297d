"""``JudgeResults``: every test cell of a feedback page shows the judge's results; a cell's hidden cases only
together, with their hints. ``test_demo.py`` checks real pages of real submissions."""

from __future__ import annotations

import json

from nbformat.v4 import new_code_cell, new_notebook, new_output
from traitlets.config import Config

from compaction_lab.provided.checking.cut import ELLIPSIS, LINE_CHARS
from compaction_lab.provided.notebook.cells import PRINTED
from workbook.course.layout import Course
from workbook.grading.results import results_path
from workbook.pipeline.feedback import JudgeResults, case_lines

CASES = [
    {
        "key": "lab3_trim_boundary/window_31",
        "grade_id": "lab3_trim_boundary",
        "hidden": False,
        "status": "passed",
        "call": "build_context(example_entries(), example_options(max_tokens=31))",
        "message": "",
        "hint": "",
    },
    {
        "key": "lab3_trim_boundary/window_30",
        "grade_id": "lab3_trim_boundary",
        "hidden": False,
        "status": "failed",
        "call": "build_context(example_entries(), example_options(max_tokens=30))",
        "message": "called build_context(...), got .reason = 'complete', expected 'trimmed' " + "x" * 600,
        "hint": "",
    },
    {
        "key": "lab3_complete_and_zero_budget/window_0",
        "grade_id": "lab3_complete_and_zero_budget",
        "hidden": True,
        "status": "failed",
        "call": "",
        "message": "",
        "hint": "With nothing left, the newest is kept whole.",
    },
]


def graded_cell(grade_id: str):
    cell = new_code_cell(f'"""What it checks."""\ncheck({grade_id!r})', execution_count=7)
    cell.metadata.nbgrader = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 1,
        "grade_id": grade_id,
        "schema_version": 3,
    }
    cell.outputs = [new_output("stream", name="stdout", text="✓ everything passed (printed by the student's kernel)")]
    return cell


HIDDEN = [
    {**CASES[2], "key": f"lab3_complete_and_zero_budget/{name}", "status": status, "hint": hint}
    for name, status, hint in (
        ("window_0", "passed", "With nothing left, the newest is kept whole."),
        ("window_1", "failed", "A window of one token keeps nothing."),
        ("window_2", "failed", "With nothing left, the newest is kept whole."),
    )
]


def test_case_lines_show_visible_calls_and_cut_messages_and_hidden_cases_together():
    lines = case_lines(CASES).splitlines()
    assert lines[0] == "✓ window_31: build_context(example_entries(), example_options(max_tokens=31))"
    assert lines[1].startswith("✗ window_30: called build_context(...), got .reason = 'complete', expected 'trimmed'")
    assert lines[1].endswith(ELLIPSIS) and len(lines[1]) == len("✗ window_30: ") + LINE_CHARS
    assert lines[2:] == ["✗ hidden test: failed; what it checks:", "  - With nothing left, the newest is kept whole."]


def test_hidden_cases_are_never_told_apart():
    """Which hidden case failed is never shown (the student's code saw their inputs): the lines are the same
    whichever failed, and every hint is listed once."""
    lines = case_lines(HIDDEN).splitlines()
    assert lines == [
        "✗ hidden tests: not all 3 passed; what they check:",
        "  - With nothing left, the newest is kept whole.",
        "  - A window of one token keeps nothing.",
    ]
    swapped = [{**case, "status": "failed" if case["status"] == "passed" else "passed"} for case in HIDDEN]
    assert case_lines(swapped).splitlines() == lines
    assert "window_" not in case_lines(HIDDEN)
    passed = [{**case, "status": "passed"} for case in HIDDEN]
    assert case_lines(passed) == "✓ hidden tests: all 3 passed\n"


def test_judge_results_replace_what_the_students_kernel_printed(tmp_path):
    course = Course(tmp_path)
    path = results_path(course, "ada")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"labs": [{"lab": 3, "cases": CASES}]}))
    answer = new_code_cell("print('mine')")
    notebook = new_notebook(
        cells=[
            graded_cell("lab3_trim_boundary"),
            graded_cell("lab3_complete_and_zero_budget"),
            graded_cell("lab3_fixed_costs"),
            answer,
        ]
    )
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    shown, _ = JudgeResults(config=config).preprocess(notebook, {"nbgrader": {"student": "ada"}})
    assert shown.cells[0].source == "[All five labs at a glance: your overview](../index.html)"
    texts = ["".join(output.text for output in cell.outputs) for cell in shown.cells[1:4]]
    assert texts[0].startswith("✓ window_31: ") and "✗ window_30: " in texts[0]
    assert texts[1] == "✗ hidden test: failed; what it checks:\n  - With nothing left, the newest is kept whole.\n"
    assert texts[2] == "This cell was not judged.\n"
    assert "printed by the student's kernel" not in "".join(texts)
    assert shown.cells[4] is answer


def test_extra_credit_is_shown_apart_from_the_notebooks_points(tmp_path):
    course = Course(tmp_path)
    path = results_path(course, "ada")
    path.parent.mkdir(parents=True)
    extra_case = {**CASES[0], "key": "lab4_extra_boundary/interleaved", "grade_id": "lab4_extra_boundary"}
    path.write_text(json.dumps({"labs": [{"lab": 4, "cases": [extra_case], "extra": {"lab4_extra_boundary": 2.0}}]}))
    cell = graded_cell("lab4_extra_boundary")
    cell.metadata.nbgrader.update(points=0, score=2.0)  # as nbgrader's GetGrades puts an extra-credit cell's grade
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    resources = {"nbgrader": {"student": "ada", "score": 12.0, "max_score": 10.0}}
    shown, resources = JudgeResults(config=config).preprocess(new_notebook(cells=[cell]), resources)
    assert resources["nbgrader"]["score"] == 10.0  # never 12 / 10
    assert shown.cells[1].source.startswith("**Score: 10/10 +2**")  # below the overview's link
    assert shown.cells[2].metadata.nbgrader["score"] == 0
    assert shown.cells[2].outputs[0].text.startswith("extra credit: +2\n✓ interleaved: ")


def test_what_the_students_code_printed_stays_below_the_judges_results(tmp_path):
    course = Course(tmp_path)
    path = results_path(course, "ada")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"labs": [{"lab": 3, "cases": CASES[:1]}]}))
    cell = graded_cell("lab3_trim_boundary")
    cell.outputs = [
        new_output(
            "stream",
            name="stdout",
            text=f"✓ window_31: printed by the kernel\n{PRINTED}\nUserWarning: a student's warning\n",
        )
    ]
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    shown, _ = JudgeResults(config=config).preprocess(new_notebook(cells=[cell]), {"nbgrader": {"student": "ada"}})
    text = shown.cells[1].outputs[0].text
    assert text == (case_lines(CASES[:1]) + f"\n{PRINTED}\nUserWarning: a student's warning\n")
