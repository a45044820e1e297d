"""The notebooks' helpers: the red/green light with its checklist, the demo guard and the test assertions.

The status tests run lab 3 (the lab whose visible cases exist on this branch) on the solutions, or
replace its checklist with stand-ins, so they say the same whatever package is under test.
"""

from __future__ import annotations

import html
import shutil

import nbformat
import pytest

from compaction_lab.provided.checking.case import Case, visible_cases
from compaction_lab.provided.checking.verdict import Verdict
from compaction_lab.provided.errors import LabNotImplementedError
from compaction_lab.provided.labs import lab
from compaction_lab.provided.notebook import saved
from compaction_lab.provided.notebook import status as light  # the status light
from compaction_lab.provided.notebook.cells import check, expect
from compaction_lab.provided.notebook.checklist import Checklist
from compaction_lab.provided.notebook.views import GREEN, RED
from workbook.paths import NOTEBOOKS, SOLUTIONS


def raise_lab(number: int, function: str):
    """A stand-in for a lab function that is not written yet."""

    def stand_in(*args, **kwargs):
        raise LabNotImplementedError(number, function)

    return stand_in


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML that the status light displays, in order."""
    html: list[str] = []
    monkeypatch.setattr(light, "display", lambda item: html.append(item.data))
    return html


def lab3_cases() -> tuple[Case, ...]:
    """Lab 3's visible cases of its own points (the checklist counts its extra-credit checks apart)."""
    return tuple(case for case in visible_cases(3) if not case.extra_credit)


def lab3_checklist(*statuses: str) -> Checklist:
    """Lab 3's visible cases with verdicts of the given statuses (a stand-in for running them)."""
    cases = lab3_cases()
    messages = {
        "passed": "",
        "failed": "called build_context(...), got 1, expected 2",
        "not started": str(LabNotImplementedError(3, "build_context")),
        "blocked": str(LabNotImplementedError(2, "group_interactions")),
    }
    verdicts = tuple(
        Verdict(case.key, "not started" if status == "blocked" else status, messages[status])
        for case, status in zip(cases, statuses, strict=True)
    )
    return Checklist(lab(3), cases, verdicts)


def test_green_with_every_visible_check_listed(shown: list[str]) -> None:
    light.show_status(3)
    status = light.lab_status(3)
    assert (status.state, status.title) == (
        "done",
        "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: 5/5 visible checks pass; "
        "extra credit: 11/11 checks pass",
    )
    assert light.checklist_lines(status.checklist) == [
        f"✓ {case.grade_id} · {case.name}: {case.call}" for case in visible_cases(3)
    ]
    assert status.checklist.cases == visible_cases(3)  # extra-credit checks listed too, counted apart
    assert status.detail == "lab 3 is checked on your own labs 2, 5"
    assert GREEN in shown[0] and shown[0].count("✓") == len(visible_cases(3))


@pytest.mark.parametrize(
    ("statuses", "state", "title"),
    [
        (["not started"] * 5, "not_implemented", str(LabNotImplementedError(3, "build_context"))),
        (
            ["blocked"] * 5,
            "blocked",
            "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: blocked by lab 2",
        ),
        (
            ["passed", "failed", "passed", "failed", "passed"],
            "wrong",
            "Lab 3 (budget projection), build_context() in compaction_lab/budget.py: 3/5 visible checks pass",
        ),
    ],
)
def test_red_states_show_the_whole_checklist(monkeypatch, shown, statuses, state, title) -> None:
    monkeypatch.setattr(light, "run_checklist", lambda number: lab3_checklist(*statuses))
    status = light.lab_status(3)
    assert (status.state, status.title, status.green) == (state, title, False)
    lines = light.checklist_lines(status.checklist)
    assert len(lines) == 5
    if state == "wrong":
        assert [line[0] for line in lines] == ["✓", "✗", "✓", "✗", "✓"]
        assert lines[1].endswith("\n      called build_context(...), got 1, expected 2")
    else:
        assert all(line.startswith("○ ") for line in lines)
    light.show_status(3)
    assert RED in shown[0] and all(html.escape(line.splitlines()[0]) in shown[0] for line in lines)


def test_summary_lines_say_where_a_lab_stands() -> None:
    assert lab3_checklist(*["passed"] * 5).summary() == "lab 3: 5/5 visible checks pass; hidden tests run at grading"
    assert (
        lab3_checklist(*["not started"] * 5).summary()
        == "lab 3: not started (build_context raises LabNotImplementedError)"
    )
    assert (
        lab3_checklist(*["blocked"] * 5).summary()
        == f"lab 3: blocked by lab 2 ({LabNotImplementedError(2, 'group_interactions')}); the grader runs lab 3 with "
        "a reference lab 2, so its points do not wait for yours"
    )
    assert (
        lab3_checklist("passed", "failed", "passed", "failed", "passed").summary()
        == "lab 3: 3/5 visible checks pass; ten_word_prompt: called build_context(...), got 1, expected 2"
    )


def test_a_saved_file_that_does_not_compile_is_red_naming_file_and_line(monkeypatch, tmp_path, shown) -> None:
    """The kernel still runs the solution, so every check would pass: the light must not be green."""
    copy = tmp_path / "compaction_lab"
    shutil.copytree(SOLUTIONS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = (copy / "budget.py").read_text()
    (copy / "budget.py").write_text(source + "\ndef broken(:\n    pass\n")
    monkeypatch.setattr(saved, "PACKAGE_DIR", copy)
    status = light.lab_status(3)
    line = source.count("\n") + 2
    assert (status.state, status.title) == (
        "broken",
        f"compaction_lab/budget.py does not compile: line {line}: invalid syntax",
    )
    assert status.excerpt == "    def broken(:\n" + " " * 15 + "^"
    assert status.detail.startswith("Fix it and save the file, then run this cell again.")
    light.show_status(3)
    assert RED in shown[0] and f"line {line}" in shown[0] and "✓" not in shown[0]
    with pytest.raises(AssertionError, match=f"compaction_lab/budget.py does not compile: line {line}"):
        check("lab3_fixed_costs")


def test_the_points_split_is_read_from_the_labs_notebook(monkeypatch, tmp_path, shown) -> None:
    split = light.point_split(NOTEBOOKS / lab(3).notebook, {case.grade_id for case in lab3_cases()})
    assert split == light.PointSplit(visible=(5, 3), hidden=(3, 3), written=(2, 1), extra=(7, 7))
    assert light.lab_status(3).points == "Hidden tests run when your work is graded."  # no notebook beside it
    shutil.copy(NOTEBOOKS / lab(3).notebook, tmp_path)
    monkeypatch.setattr(light, "PACKAGE_DIR", tmp_path / "compaction_lab")
    expected = (
        "Visible checks: 5 points (3 cells). Hidden tests: 3 points (3 cells), run when your work is "
        "graded. Written answer: 2 points (1 cell), graded by hand. Extra credit: 7 points (7 cells), outside "
        "the lab's points."
    )
    assert light.lab_status(3).points == expected
    light.show_status(3)
    assert html.escape(expected) in shown[0]


def test_extra_credit_cells_are_counted_apart_from_the_labs_points(monkeypatch, tmp_path) -> None:
    split = light.point_split(NOTEBOOKS / lab(4).notebook, {case.grade_id for case in visible_cases(4)})
    assert split == light.PointSplit(visible=(5, 3), hidden=(3, 3), written=(2, 1), extra=(6, 5))
    shutil.copy(NOTEBOOKS / lab(4).notebook, tmp_path)
    monkeypatch.setattr(light, "PACKAGE_DIR", tmp_path / "compaction_lab")
    assert light.lab_status(4).points.endswith(
        "Written answer: 2 points (1 cell), graded by hand. Extra credit: 6 points (5 cells), outside the lab's points."
    )


def test_demo_shows_errors_instead_of_raising(shown: list[str]) -> None:
    with light.demo():
        raise LabNotImplementedError(3, "build_context")
    with light.demo():
        raise KeyError("message")
    assert "build_context() is not implemented yet" in shown[0]
    assert "KeyError" in shown[1] and "traceback" in shown[1]


def test_expect_names_call_result_and_first_difference() -> None:
    with pytest.raises(AssertionError) as failure:
        expect([{"id": "u1", "tokens": 3}], [{"id": "u1", "tokens": 4}], "price(path)")
    assert str(failure.value) == (
        "called price(path), got [{'id': 'u1', 'tokens': 3}], expected "
        "[{'id': 'u1', 'tokens': 4}] (first difference at [0]['tokens']: got 3, expected 4)"
    )


def hidden_only_cells() -> list[tuple[str, str]]:
    """``(grade_id, source)`` of every notebook's autograded code cells that have no visible case."""
    visible = {case.grade_id for case in visible_cases()}
    cells = [
        cell
        for path in sorted(NOTEBOOKS.glob("*.ipynb"))
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code"
    ]
    return [
        (cell.metadata["nbgrader"]["grade_id"], cell.source)
        for cell in cells
        if cell.metadata.get("nbgrader", {}).get("grade") and cell.metadata["nbgrader"]["grade_id"] not in visible
    ]


def test_a_hidden_only_test_cell_prints_one_plain_line_and_no_out_value(capsys) -> None:
    """Run as IPython runs a cell: no ``Out[]`` (the docstring is not the last expression and ``check`` returns
    None), nothing on stderr, one stdout line saying the points are decided at grading: no mark of a result
    (✓ or ✗) and nothing of the hidden cases."""
    from IPython.core.interactiveshell import InteractiveShell

    cells = hidden_only_cells()
    assert len(cells) >= 5 and {grade_id[:4] for grade_id, _ in cells} == {f"lab{n}" for n in range(1, 6)}
    shell = InteractiveShell.instance()
    try:
        assert shell.run_cell("from compaction_lab.provided.notebook import check").success  # as the setup cell
        for grade_id, source in cells:
            result = shell.run_cell(source, store_history=True)
            printed = capsys.readouterr()
            assert result.success and result.result is None, grade_id
            assert (printed.out, printed.err) == (
                f"{grade_id}: graded by hidden tests when your work is graded; the docstring above says what they "
                "check.\n",
                "",
            ), grade_id
    finally:
        InteractiveShell.clear_instance()
