"""``workbook.course.accidents`` on its own: nbgrader's log read into notes, a renamed notebook matched by its grade
cells, and the two preprocessors. ``test_autograde.py`` runs each accident through the whole pipeline."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from workbook.course.accidents import DropClearedMetadata, failure_reason, log_notes, plan_notebooks

NBGRADER_LOG = """[INFO] Sanitizing 03_budget_projection.ipynb
[WARNING] Cell with id 'lab3_trim_boundary' exists multiple times!
[WARNING] Missing grade cell lab3_fixed_costs encountered, adding to notebook
[WARNING] Attribute 'checksum' for cell lab3_setup has changed! (should be: 1f, got: 2e)
[WARNING] Attribute 'checksum' for cell lab3_setup has changed! (should be: 1f, got: 2e)
[WARNING] Attribute 'points' for cell lab3_fixed_costs has changed! (should be: 2.0, got: 20.0)
"""


def graded_notebook(*grade_ids: str) -> nbformat.NotebookNode:
    cells = []
    for grade_id in grade_ids:
        cell = new_code_cell(f"check({grade_id!r})")
        cell.metadata.nbgrader = {
            "grade": True,
            "grade_id": grade_id,
            "locked": True,
            "points": 1,
            "schema_version": 3,
            "solution": False,
        }
        cells.append(cell)
    return new_notebook(cells=cells)


def test_nbgraders_repairs_become_one_note_each():
    assert log_notes(NBGRADER_LOG) == [
        "a copy of cell lab3_trim_boundary was ignored (the original counts once)",
        "cell lab3_fixed_costs was missing: restored from the release and graded",
        "locked cell lab3_setup was edited: graded as released",
        "cell lab3_fixed_costs's points was changed: graded as released",
    ]
    assert log_notes("[INFO] nothing happened\n") == []


def test_a_failure_is_named_by_its_last_exception_line_not_nbgraders_summary():
    log = (
        "    nbclient.exceptions.DeadKernelError: Kernel died\n"
        "nbgrader.converters.base.NbGraderException: Please see the the above traceback\n"
    )
    assert failure_reason(log) == "DeadKernelError: Kernel died"
    assert failure_reason("all fine") == ""


def test_a_single_renamed_copy_is_graded_as_the_missing_notebook(tmp_path):
    nbformat.write(graded_notebook("lab1_a"), tmp_path / "01_records.ipynb")
    nbformat.write(graded_notebook("lab3_a", "lab3_b"), tmp_path / "03_budget-Copy1.ipynb")
    nbformat.write(new_notebook(cells=[new_markdown_cell("scratch")]), tmp_path / "Untitled.ipynb")
    plan = plan_notebooks(tmp_path, {"01_records": {"lab1_a"}, "03_budget": {"lab3_a", "lab3_b"}})
    assert plan.files == {"01_records": "01_records.ipynb", "03_budget": "03_budget-Copy1.ipynb"}
    assert plan.renamed == {"03_budget": "03_budget-Copy1.ipynb"} and plan.missing == ()
    assert plan.notes == (
        "03_budget.ipynb missing: graded its renamed copy 03_budget-Copy1.ipynb in its place",
        "extra notebook Untitled.ipynb not graded",
    )


def test_two_copies_are_ambiguous_and_a_missing_notebook_is_named(tmp_path):
    for name in ("03_budget-Copy1", "03_budget-Copy2"):
        nbformat.write(graded_notebook("lab3_a"), tmp_path / f"{name}.ipynb")
    (tmp_path / "broken.ipynb").write_text("{not json")
    plan = plan_notebooks(tmp_path, {"01_records": {"lab1_a"}, "03_budget": {"lab3_a"}})
    assert plan.files == {} and plan.missing == ("01_records", "03_budget")
    assert plan.notes == (
        "01_records.ipynb missing: its written answer scores 0, its tests are graded from your code",
        "03_budget.ipynb missing (several copies: 03_budget-Copy1.ipynb, 03_budget-Copy2.ipynb; none graded): its "
        "written answer scores 0, its tests are graded from your code",
        "extra notebook 03_budget-Copy1.ipynb not graded",
        "extra notebook 03_budget-Copy2.ipynb not graded",
        "extra notebook broken.ipynb not graded",
    )


def test_the_copy_nbgrader_deduplicated_becomes_an_ordinary_cell():
    notebook = graded_notebook("lab3_a", "lab3_a")
    notebook.cells[0].metadata.nbgrader = {}  # what nbgrader's DeduplicateIds leaves on the earlier copy
    cleaned, _ = DropClearedMetadata().preprocess(notebook, {})
    assert "nbgrader" not in cleaned.cells[0].metadata
    assert cleaned.cells[1].metadata.nbgrader["grade_id"] == "lab3_a"
