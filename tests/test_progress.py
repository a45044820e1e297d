"""The notebooks' helpers: the red/green light with its checklist, the demo guard and the test assertions.

The status tests run lab 3 (the lab whose visible cases exist on this branch) on the solutions, or
replace its checklist with stand-ins, so they say the same whatever package is under test.
"""

from __future__ import annotations

import copy
import html
import operator
import shutil

import pytest

from compaction_lab.provided import progress, saved
from compaction_lab.provided.cases import Verdict, check, visible_cases
from compaction_lab.provided.checklist import Checklist
from compaction_lab.provided.checks import expect, expect_error, expect_shares_nothing
from compaction_lab.provided.errors import InteractionError, LabNotImplementedError
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.labs import lab
from compaction_lab.provided.views import GREEN, RED
from workbook.paths import NOTEBOOKS, SOLUTIONS


def raise_lab(number: int, function: str):
    """A stand-in for a lab function that is not written yet."""
    def stand_in(*args, **kwargs):
        raise LabNotImplementedError(number, function)
    return stand_in


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML that ``progress`` displays, in order."""
    html: list[str] = []
    monkeypatch.setattr(progress, "display", lambda item: html.append(item.data))
    return html


def lab3_checklist(*statuses: str) -> Checklist:
    """Lab 3's visible cases with verdicts of the given statuses (a stand-in for running them)."""
    cases = visible_cases(3)
    messages = {"passed": "", "failed": "called build_context(...), got 1, expected 2",
                "not started": str(LabNotImplementedError(3, "build_context")),
                "blocked": str(LabNotImplementedError(2, "group_interactions"))}
    verdicts = tuple(Verdict(case.key, "not started" if status == "blocked" else status, messages[status])
                     for case, status in zip(cases, statuses, strict=True))
    return Checklist(lab(3), cases, verdicts)


def test_green_with_every_visible_check_listed(shown: list[str]) -> None:
    progress.show_status(3)
    status = progress.lab_status(3)
    assert (status.state, status.title) == (
        "done", "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: 5/5 visible checks pass")
    assert progress.checklist_lines(status.checklist) == [f"✓ {case.grade_id} · {case.name}: {case.call}"
                                                          for case in visible_cases(3)]
    assert GREEN in shown[0] and shown[0].count("✓") == 5


@pytest.mark.parametrize(("statuses", "state", "title"), [
    (["not started"] * 5, "not_implemented", str(LabNotImplementedError(3, "build_context"))),
    (["blocked"] * 5, "blocked", "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: "
                                 "blocked by lab 2"),
    (["passed", "failed", "passed", "failed", "passed"], "wrong",
     "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: 3/5 visible checks pass"),
])
def test_red_states_show_the_whole_checklist(monkeypatch, shown, statuses, state, title) -> None:
    monkeypatch.setattr(progress, "run_checklist", lambda number: lab3_checklist(*statuses))
    status = progress.lab_status(3)
    assert (status.state, status.title, status.green) == (state, title, False)
    lines = progress.checklist_lines(status.checklist)
    assert len(lines) == 5
    if state == "wrong":
        assert [line[0] for line in lines] == ["✓", "✗", "✓", "✗", "✓"]
        assert lines[1].endswith("\n      called build_context(...), got 1, expected 2")
    else:
        assert all(line.startswith("○ ") for line in lines)
    progress.show_status(3)
    assert RED in shown[0] and all(html.escape(line.splitlines()[0]) in shown[0] for line in lines)


def test_summary_lines_say_where_a_lab_stands() -> None:
    assert lab3_checklist(*["passed"] * 5).summary() == "lab 3: 5/5 visible checks pass; hidden tests run at grading"
    assert lab3_checklist(*["not started"] * 5).summary() == \
        "lab 3: not started (build_context raises LabNotImplementedError)"
    assert lab3_checklist(*["blocked"] * 5).summary() == \
        f"lab 3: blocked by lab 2 ({LabNotImplementedError(2, 'group_interactions')})"
    assert lab3_checklist("passed", "failed", "passed", "failed", "passed").summary() == \
        "lab 3: 3/5 visible checks pass; ten_word_prompt: called build_context(...), got 1, expected 2"


def test_a_saved_file_that_does_not_compile_is_red_naming_file_and_line(monkeypatch, tmp_path, shown) -> None:
    """The kernel still runs the solution, so every check would pass: the light must not be green."""
    copy = tmp_path / "compaction_lab"
    shutil.copytree(SOLUTIONS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = (copy / "budget.py").read_text()
    (copy / "budget.py").write_text(source + "\ndef broken(:\n    pass\n")
    monkeypatch.setattr(saved, "PACKAGE_DIR", copy)
    status = progress.lab_status(3)
    line = source.count("\n") + 2
    assert (status.state, status.title) == ("broken", f"compaction_lab/budget.py does not compile: line {line}: "
                                                      "invalid syntax")
    assert status.excerpt == "    def broken(:\n" + " " * 15 + "^"
    assert status.detail.startswith("Fix it and save the file, then run this cell again.")
    progress.show_status(3)
    assert RED in shown[0] and f"line {line}" in shown[0] and "✓" not in shown[0]
    with pytest.raises(AssertionError, match=f"compaction_lab/budget.py does not compile: line {line}"):
        check("lab3_fixed_costs")


def test_the_points_split_is_read_from_the_labs_notebook(monkeypatch, tmp_path, shown) -> None:
    split = progress.point_split(NOTEBOOKS / lab(3).notebook, {case.grade_id for case in visible_cases(3)})
    assert split == progress.PointSplit(visible=(5, 3), hidden=(3, 3), written=(2, 1))
    assert progress.lab_status(3).points == "Hidden tests run when your work is graded."  # no notebook beside it
    shutil.copy(NOTEBOOKS / lab(3).notebook, tmp_path)
    monkeypatch.setattr(progress, "PACKAGE_DIR", tmp_path / "compaction_lab")
    expected = ("Visible checks: 5 points (3 cells). Hidden tests: 3 points (3 cells), run when your work is "
                "graded. Written answer: 2 points (1 cell), graded by hand.")
    assert progress.lab_status(3).points == expected
    progress.show_status(3)
    assert expected in shown[0]


def test_demo_shows_errors_instead_of_raising(shown: list[str]) -> None:
    with progress.demo():
        raise LabNotImplementedError(3, "build_context")
    with progress.demo():
        raise KeyError("message")
    assert "build_context() is not implemented yet" in shown[0]
    assert "KeyError" in shown[1] and "traceback" in shown[1]


def test_expect_names_call_result_and_first_difference() -> None:
    with pytest.raises(AssertionError) as failure:
        expect([{"id": "u1", "tokens": 3}], [{"id": "u1", "tokens": 4}], "price(path)")
    assert str(failure.value) == ("called price(path), got [{'id': 'u1', 'tokens': 3}], expected "
                                  "[{'id': 'u1', 'tokens': 4}] (first difference at [0]['tokens']: got 3, expected 4)")


def test_expect_error_checks_type_and_named_words() -> None:
    def refuse(word: str) -> None:
        raise InteractionError(f"call id {word!r}: no tool result")

    expect_error(InteractionError, "refuse('read-1')", refuse, "read-1", naming=("read-1",))
    with pytest.raises(AssertionError, match=r"without \['test-1'\], expected InteractionError naming 'test-1'"):
        expect_error(InteractionError, "refuse('read-1')", refuse, "read-1", naming=("test-1",))
    with pytest.raises(AssertionError, match=r"got 3 and no error, expected InteractionError"):
        expect_error(InteractionError, "len('abc')", len, "abc")
    with pytest.raises(AssertionError, match=r"got ZeroDivisionError\('division by zero'\), expected Interaction"):
        expect_error(InteractionError, "truediv(1, 0)", operator.truediv, 1, 0)
    with pytest.raises(LabNotImplementedError):
        expect_error(InteractionError, "group_interactions([])", raise_lab(2, "group_interactions"))


def test_expect_shares_nothing() -> None:
    source = example_entries()
    expect_shares_nothing(copy.deepcopy(source), source, "deepcopy(path)")
    with pytest.raises(AssertionError, match="shares"):
        expect_shares_nothing(list(source), source, "list(path)")
