"""A failing test cell: its ✓/✗ lines, then one closing line naming the cell and its points, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction_lab.provided.checking.case import visible_cases
from compaction_lab.provided.checking.verdict import Verdict
from compaction_lab.provided.errors import LabNotImplementedError
from compaction_lab.provided.notebook import cells, status

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def failing(number, cases):
    """``run_on_its_own`` failing every case, every lab it uses done."""
    return [Verdict(case.key, "failed", f"called {case.call}, got 1, expected 2") for case in cases], ()


def test_a_failing_cell_closes_with_one_line_naming_it_and_its_points(monkeypatch, capsys) -> None:
    monkeypatch.chdir(NOTEBOOKS)  # a kernel runs beside its notebook
    monkeypatch.setattr(cells, "run_on_its_own", failing)
    with pytest.raises(cells.ChecksFailed) as raised:
        cells.check("lab3_trim_boundary")
    assert str(raised.value) == "lab3_trim_boundary (1 point): 2 of 2 checks failed (the ✗ lines above)"
    assert raised.value._render_traceback_() == [f"ChecksFailed: {raised.value}"]
    printed = capsys.readouterr().out.splitlines()
    assert [line[:2] for line in printed if line.startswith("✗")] == ["✗ ", "✗ "]


def test_without_its_notebook_the_closing_line_leaves_the_points_out(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cells, "run_on_its_own", failing)
    with pytest.raises(cells.ChecksFailed, match=r"^lab3_trim_boundary: 2 of 2 checks failed"):
        cells.check("lab3_trim_boundary")


def test_the_points_are_the_cells_own_and_extra_credit_its_extra_credit() -> None:
    notebook = NOTEBOOKS / "03_budget_projection.ipynb"
    assert status.cell_points(notebook, "lab3_fixed_costs") == 2
    extra = next(case.grade_id for case in visible_cases(3) if case.grade_id.startswith("lab3_extra"))
    assert status.cell_points(notebook, extra) > 0
    assert status.cell_points(notebook, "lab3_no_such_cell") is None


def test_not_started_is_shown_as_its_message_alone() -> None:
    error = LabNotImplementedError(3, "build_context")
    assert error._render_traceback_() == [f"LabNotImplementedError: {error}"]
