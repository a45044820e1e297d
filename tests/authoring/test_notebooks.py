"""The five nbgrader source notebooks (issue 3).

Each notebook runs top to bottom against the solutions with every autograder cell, hidden tests
included, passing silently; against the starters every autograder cell fails with that
notebook's own ``LabNotImplementedError`` (a Going-further cell: that of its own function) and
nothing else fails. The committed files are clean, their nbgrader metadata is valid, grade ids are
unique and descriptive, and each is worth 10, with its extra credit (Going further) stated apart.
The kernel runs in a temporary folder holding the notebook and a copy of the package as
``compaction_lab/``, as a student's folder does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from conftest import SHARED
from nbgrader import nbgraderformat
from notebook_runs import execute as run_notebook
from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import is_extra_credit, visible_cases
from compaction_lab.provided.errors import LabNotImplementedError
from compaction_lab.provided.labs import LABS

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
PACKAGES = {"solutions": REPO / "solutions" / "compaction_lab", "starters": STARTER_PACKAGE}
GRADE_ID = re.compile(r"^lab[1-5]_[a-z0-9_]+$")
TOTAL_POINTS = 10
EXPLORER_LABS = (2, 3, 4, 5)
REAL_SESSION_CELLS = {
    1: {"lab1-guard-real": "all 1018 entries within the limits"},
    3: {
        "lab3-units-real": "units per chars3 token",
        "lab3-summary-real": "summary_at='system_prompt': system 1,293",
        "lab3-cache-real": "headroom 0.5, summary in system prompt",
    },
    5: {"lab5-real-run": "after workbook-compact-1: "},
}
"""What each notebook's real-session cells print on the shared Pi sessions, by cell id."""

pytestmark = pytest.mark.slow
LAB_PARAMS = [pytest.param(lab, id=lab.marker, marks=getattr(pytest.mark, lab.marker)) for lab in LABS]


def read(lab) -> nbformat.NotebookNode:
    """The committed source notebook of ``lab``."""
    return nbformat.read(NOTEBOOKS / lab.notebook, as_version=4)


def graded_code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The autograder test cells."""
    return [
        cell for cell in notebook.cells if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    ]


def extra_credit(cell: nbformat.NotebookNode) -> float | None:
    """The extra-credit points of a Going-further grade cell (None for a cell of the lab's 10 points)."""
    return cell.metadata.get("workbook", {}).get("extra_credit")


def not_implemented(lab) -> re.Pattern:
    """The message of ``lab``'s ``LabNotImplementedError``, for any of its functions (a lab's going-further
    part has several)."""
    return re.compile(
        rf"Lab {lab.number} \({re.escape(lab.title)}\): \w+\(\) is not implemented yet; "
        rf"see {re.escape(lab.notebook)}"
    )


def execute(lab, package: str, folder: Path) -> nbformat.NotebookNode:
    """Run ``lab``'s notebook in ``folder`` beside a copy of ``package`` (errors kept as outputs)."""
    return run_notebook(lab, PACKAGES[package], folder)


def problems(outputs: list) -> list[str]:
    """The error outputs and stderr text among ``outputs``."""
    return [
        f"{output['ename']}: {output['evalue']}" if output["output_type"] == "error" else output["text"]
        for output in outputs
        if output["output_type"] == "error" or (output["output_type"] == "stream" and output["name"] == "stderr")
    ]


def explorer_outputs(notebook: nbformat.NotebookNode) -> list[dict]:
    """What the explorers drew: the outputs held in the saved state of every Output widget."""
    state = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return [
        output
        for model in state.get("state", {}).values()
        if model["model_name"] == "OutputModel"
        for output in model["state"].get("outputs", [])
    ]


def text_of(outputs: list) -> str:
    """All text and HTML of ``outputs``, joined."""
    return "\n".join(
        output.get("text", "") + "".join(output.get("data", {}).get(kind, "") for kind in ("text/plain", "text/html"))
        for output in outputs
    )


@pytest.fixture
def pi_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the notebooks at the real Pi sessions when ../shared is present (lab 5 skips otherwise)."""
    folder = SHARED / "fixtures" / "pi-sessions"
    if folder.is_dir():
        monkeypatch.setenv("WORKBOOK_PI_SESSIONS", str(folder))


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_runs_clean_against_solutions(lab, tmp_path: Path, pi_sessions: None) -> None:
    notebook = execute(lab, "solutions", tmp_path)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert problems(cell.outputs) == [], f"{lab.notebook} cell {cell.id}: {problems(cell.outputs)}"
    for cell in graded_code_cells(notebook):
        printed = text_of(cell.outputs)
        assert all(output.output_type == "stream" and output.name == "stdout" for output in cell.outputs), (
            f"{lab.notebook} test cell {cell.id} shows more than its checklist: {cell.outputs}"
        )
        assert "✗" not in printed, f"{lab.notebook} test cell {cell.id}: {printed}"
    drawn = explorer_outputs(notebook)
    assert problems(drawn) == [] and "not implemented" not in text_of(drawn)
    assert bool(drawn) == (lab.number in EXPLORER_LABS)
    if lab.number == 1:
        legacy = next(cell for cell in notebook.cells if cell.id == "lab1-demo-legacy")
        assert text_of(legacy.outputs) == (
            "refused, as it should be: compaction 'compact-1': summary.files: unknown or legacy key\n"
        ), "lab 1's legacy demo names summary.files"
    if "WORKBOOK_PI_SESSIONS" in os.environ:
        for cell_id, shown in REAL_SESSION_CELLS.get(lab.number, {}).items():
            real = next(cell for cell in notebook.cells if cell.id == cell_id)
            assert shown in text_of(real.outputs), (cell_id, text_of(real.outputs))
        if lab.number == 3:
            plot = next(cell for cell in notebook.cells if cell.id == "lab3-cache-real")
            assert any("image/png" in output.get("data", {}) for output in plot.outputs), "no plot of the replays"


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_fails_only_with_own_lab_against_starters(lab, tmp_path: Path, pi_sessions: None) -> None:
    notebook = execute(lab, "starters", tmp_path)
    expected = str(LabNotImplementedError(lab.number, lab.function))
    visible_grade_ids = {case.grade_id for case in visible_cases(lab.number)}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        if cell in graded_code_cells(notebook):
            errors = [(output.ename, output.evalue) for output in cell.outputs if output.output_type == "error"]
            tracebacks = [output.traceback for output in cell.outputs if output.output_type == "error"]
            assert all(len(lines) == 1 for lines in tracebacks), f"{cell.id}: one closing line, no traceback"
            if cell.metadata.nbgrader.grade_id in visible_grade_ids and extra_credit(cell):
                assert [name for name, _ in errors] == ["LabNotImplementedError"], (cell.id, errors)
                assert not_implemented(lab).fullmatch(errors[0][1]), f"{lab.notebook} test cell {cell.id}: {errors}"
            elif cell.metadata.nbgrader.grade_id in visible_grade_ids:
                assert errors == [("LabNotImplementedError", expected)], f"{lab.notebook} test cell {cell.id}: {errors}"
            else:
                printed = "".join(output.text for output in cell.outputs)  # a print may arrive in two messages
                assert {(output.output_type, output.get("name")) for output in cell.outputs} == {("stream", "stdout")}
                assert printed.startswith(f"{cell.id}: graded by hidden tests") and printed.count("\n") == 1, printed
        else:
            assert problems(cell.outputs) == [], f"{lab.notebook} cell {cell.id} stops Run All: {cell.outputs}"
    drawn = explorer_outputs(notebook)
    assert problems(drawn) == []
    assert bool(drawn) == (lab.number in EXPLORER_LABS)
    assert not drawn or not_implemented(lab).search(text_of(drawn)), (
        f"the explorer does not say that lab {lab.number} is missing"
    )


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_committed_clean(lab) -> None:
    for cell in read(lab).cells:
        if cell.cell_type == "code":
            assert (cell.outputs, cell.execution_count) == ([], None), f"{lab.notebook} cell {cell.id} has outputs"


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_nbgrader_metadata(lab) -> None:
    with open(NOTEBOOKS / lab.notebook, encoding="utf-8") as file:
        notebook = nbgraderformat.read(file, as_version=4)  # raises ValidationError for bad metadata
    graded = [cell.metadata["nbgrader"] for cell in notebook.cells if "nbgrader" in cell.metadata]
    assert {meta["schema_version"] for meta in graded} == {nbgraderformat.SCHEMA_VERSION} == {3}
    for cell in notebook.cells:
        if "nbgrader" in cell.metadata:
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            assert GRADE_ID.match(grade_id) and grade_id.startswith(lab.marker), grade_id
            assert cell.id == grade_id, f"cell id {cell.id} differs from its grade id {grade_id}"
    assert sum(meta.get("points", 0) for meta in graded if meta["grade"]) == TOTAL_POINTS


def nbgrader_points(cell: nbformat.NotebookNode) -> float:
    """The points nbgrader counts for a grade cell."""
    return cell.metadata["nbgrader"]["points"]


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_points_split_stated_in_opening(lab) -> None:
    notebook = read(lab)
    visible = {case.grade_id for case in visible_cases(lab.number)}
    grade_cells = [cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]

    def split(cells: list) -> tuple[list, list, list]:
        """Visible test cells, hidden test cells and written answers among ``cells``."""
        tests = [cell for cell in cells if cell.cell_type == "code"]
        hidden = [cell for cell in tests if cell.metadata["nbgrader"]["grade_id"] not in visible]
        return [cell for cell in tests if cell not in hidden], hidden, [cell for cell in cells if cell not in tests]

    def total(cells: list, points: Callable[[nbformat.NotebookNode], float]) -> int:
        return int(sum(map(points, cells)))

    shown, hidden, written = split([cell for cell in grade_cells if extra_credit(cell) is None])
    assert hidden and len(written) == 1
    stated = re.search(
        r"Visible autograder tests: (\d+) points.*Hidden autograder tests: (\d+) points.*"
        r"Written answer: (\d+) points",
        notebook.cells[0].source,
        re.S,
    )
    want = tuple(total(cells, nbgrader_points) for cells in (shown, hidden, written))
    assert stated and tuple(map(int, stated.groups())) == want, f"{lab.notebook} states another split than {want}"

    extra = [cell for cell in grade_cells if extra_credit(cell) is not None]
    assert all(nbgrader_points(cell) == 0 for cell in extra), "extra credit is never a cell's nbgrader points"
    if not extra:
        assert "Extra credit" not in notebook.cells[0].source
        return
    shown, hidden, written = split(extra)
    headings = [cell.source.split("\n")[0] for cell in notebook.cells]
    start = next(index for index, heading in enumerate(headings) if heading.startswith("## Going further"))
    end = headings.index("## Before you go on")
    assert all(start < notebook.cells.index(cell) < end for cell in extra)
    assert all(notebook.cells.index(cell) < start for cell in grade_cells if cell not in extra)
    if not written:  # a going-further part without a graded written answer states only its total (tested below)
        return
    stated = re.search(
        r"Extra credit: (\d+) points\*\*, outside the 10.*visible: (\d+) points? in (\d+) cells?; "
        r"hidden: (\d+) points? in (\d+) cells?\) and a written answer\s+worth\s+(\d+) points?",
        notebook.cells[0].source,
        re.S,
    )
    want = (
        total(extra, extra_credit),
        total(shown, extra_credit),
        len(shown),
        total(hidden, extra_credit),
        len(hidden),
        total(written, extra_credit),
    )
    assert stated and tuple(map(int, stated.groups())) == want, f"{lab.notebook} states other extra credit than {want}"


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_extra_credit_outside_the_ten_points_and_stated_in_opening(lab) -> None:
    cells = [cell for cell in graded_code_cells(read(lab)) if extra_credit(cell)]
    assert all(cell.metadata["nbgrader"]["points"] == 0 and extra_credit(cell) in (1, 2) for cell in cells)
    named = [cell for cell in graded_code_cells(read(lab)) if is_extra_credit(cell.metadata["nbgrader"]["grade_id"])]
    assert named == cells, "the checklist tells extra-credit cells by their grade id (cases.is_extra_credit)"
    every = [cell for cell in read(lab).cells if extra_credit(cell)]  # tests and a written answer
    if every:
        stated = re.search(r"\*\*Extra credit: (\d+) points\*\*", read(lab).cells[0].source)
        assert stated and int(stated[1]) == sum(map(extra_credit, every)), f"{lab.notebook} states another extra credit"


def test_grade_ids_unique_across_notebooks() -> None:
    ids = [
        cell.metadata["nbgrader"]["grade_id"] for lab in LABS for cell in read(lab).cells if "nbgrader" in cell.metadata
    ]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("lab", LAB_PARAMS)
def test_markers_only_in_their_cells(lab) -> None:
    for cell in read(lab).cells:
        meta = cell.metadata.get("nbgrader", {})
        if "### BEGIN HIDDEN TESTS" in cell.source:
            assert meta.get("grade") and not meta.get("solution"), f"hidden tests outside a test cell: {cell.id}"
        if "### BEGIN SOLUTION" in cell.source:
            assert meta.get("solution"), f"a solution region outside a solution cell: {cell.id}"
