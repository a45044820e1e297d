"""``HideHiddenTests``: feedback shows that a hidden test failed and its grade_id, never its code.

These tests feed the preprocessor cells shaped like nbgrader's autograded output (IPython's
coloured traceback); ``test_demo.py`` checks real feedback pages of real submissions."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_output

from workbook.feedback import DROPPED_NOTE, HideHiddenTests

SOURCE = '''"""Budget: reason and ledger."""
context = build_context(path, options)
assert context.reason == "trimmed"
### BEGIN HIDDEN TESTS
secret_probe = make_zero_budget_options()
assert build_context(path, secret_probe).reason == "single_group_overflow", "zero budget keeps the newest"
### END HIDDEN TESTS'''


def cell_frame(line: int) -> str:
    return (f"\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[7]\x1b[39m\x1b[32m, line {line}\x1b[39m\n"
            + "".join(f"\x1b[32m      {n}\x1b[39m {text}\n" for n, text in enumerate(SOURCE.splitlines(), 1)))


def graded_cell(traceback: list[str], evalue: str, ename: str = "AssertionError", extra=()):
    cell = new_code_cell(SOURCE, execution_count=7)
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "points": 1,
                              "grade_id": "lab3_zero_budget", "schema_version": 3}
    header = ["\x1b[31m" + "-" * 75 + "\x1b[39m", f"\x1b[31m{ename}\x1b[39m    Traceback (most recent call last)"]
    cell.outputs = [*extra, new_output("error", ename=ename, evalue=evalue,
                                       traceback=header + traceback + [f"\x1b[31m{ename}\x1b[39m: {evalue}"])]
    return HideHiddenTests().preprocess_cell(cell, {}, 0)[0]


def shown(cell) -> str:
    return cell.source + "\n".join("\n".join(output.get("traceback", [output.get("text", "")]))
                                   for output in cell.outputs)


def test_a_failed_hidden_assert_shows_its_grade_id_not_its_code_or_message():
    cell = graded_cell([cell_frame(6)], "zero budget keeps the newest")
    text = shown(cell)
    for secret in ("secret_probe", "make_zero_budget_options", "single_group_overflow", "zero budget keeps",
                   "HIDDEN TESTS"):
        assert secret not in text
    assert "Cell lab3_zero_budget, line 6: hidden test (code not shown)" in text
    assert cell.outputs[-1].evalue == "hidden test failed in lab3_zero_budget"
    assert cell.outputs[-1].traceback[-1] == "AssertionError: hidden test failed in lab3_zero_budget"
    assert cell.source == '"""Budget: reason and ledger."""\ncontext = build_context(path, options)\n' \
                          'assert context.reason == "trimmed"'


def test_a_failed_visible_assert_keeps_its_line_and_message():
    cell = graded_cell([cell_frame(3)], "got 'complete'")
    text = shown(cell)
    assert "----> 3 assert context.reason == \"trimmed\"" in text
    assert cell.outputs[-1].evalue == "got 'complete'"
    assert "secret_probe" not in text


def test_an_error_in_the_students_module_keeps_that_frame_and_message():
    module_frame = ("\x1b[36mFile \x1b[39m\x1b[32m/course/autograded/ada/compaction_labs/compaction_lab/budget.py:57"
                    "\x1b[39m, in build_context\n---> 57     raise KeyError(entry['id'])\n")
    cell = graded_cell([cell_frame(6), module_frame], "'r-test'", ename="KeyError")
    text = shown(cell)
    assert "budget.py:57" in text and cell.outputs[-1].evalue == "'r-test'"
    assert "Cell lab3_zero_budget, line 6: hidden test (code not shown)" in text
    assert "secret_probe" not in text


def test_other_outputs_of_a_hidden_test_cell_are_dropped_with_a_note():
    printed = new_output("stream", name="stderr", text="secret_probe printed this\n")
    cell = graded_cell([cell_frame(6)], "x", extra=[printed])
    assert cell.outputs[0].text == DROPPED_NOTE
    assert "secret_probe" not in shown(cell)


def test_a_test_helper_failing_under_a_hidden_line_loses_its_message():
    helper_frame = ("\x1b[36mFile \x1b[39m\x1b[32m/course/autograded/ada/compaction_labs/compaction_lab/checks.py:35"
                    "\x1b[39m, in expect\n---> 35     raise AssertionError(message)\n")
    cell = graded_cell([cell_frame(6), helper_frame], "called build_context(path, zero budget), got 'trimmed'")
    assert "zero budget" not in shown(cell)
    assert cell.outputs[-1].evalue == "hidden test failed in lab3_zero_budget"
