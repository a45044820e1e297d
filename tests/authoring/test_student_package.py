"""What a student gets (issue 22): the release and the practice workspace hold the student's things, and nothing
of the grader's: no file of the judge's runtime, no hidden case, no mistake bank; and every file under
``provided/`` is there because a notebook, a lab module or another provided file uses it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat
import pytest

from workbook.course.layout import PACKAGE
from workbook.grading.casebook import load_cases
from workbook.paths import LAB_CASES, NOTEBOOKS, SOLUTIONS, STARTERS
from workbook.student.practice import practice

RUNTIME = Path(__file__).resolve().parents[2] / "workbook" / "grading" / "runtime"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("workspace") / "labs"
    practice(folder)
    return folder


def test_the_workspace_opens_with_start_here_and_holds_the_release(workspace):
    names = sorted(path.name for path in workspace.iterdir())
    assert names == sorted(["START.md", PACKAGE, *(path.name for path in NOTEBOOKS.glob("*.ipynb"))])
    start = (workspace / "START.md").read_text(encoding="utf-8")
    for module in ("records.py", "grouping.py", "budget.py", "compaction.py", "resumption.py", "workbook check"):
        assert module in start
    mine = sorted(path.name for path in (workspace / PACKAGE).glob("*.py"))
    assert mine == sorted(path.name for path in STARTERS.glob("*.py")), "the student's files are at the top"


def test_no_file_of_the_graders_runtime_or_hidden_case_reaches_a_student(workspace):
    files = [path for path in workspace.rglob("*") if path.is_file()]
    names = {path.name for path in files}
    assert not names & {"runner.py", "oracle.py", "relay.py", "hidden.py", "mistakes.py"}
    assert not any("_grader" in path.parts for path in files)
    text = "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)
    # each runtime module's own definitions (its functions and classes), as its source spells them
    runtime = {
        ast.get_source_segment(source, node).splitlines()[0]
        for path in RUNTIME.glob("*.py")
        for source in [path.read_text(encoding="utf-8")]
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name != "main"
    }
    assert len(runtime) > 5 and not [line for line in runtime if line in text]
    calls = {case.call for case in load_cases(LAB_CASES, "hidden")} - {
        case.call for case in load_cases(LAB_CASES, "visible")
    }
    assert calls and not [call for call in calls if call in text], "no hidden case's call, whatever its file"


def _imports(source: str, package: str) -> set[str]:
    """The ``compaction_lab`` modules ``source`` (a module of package ``package``, dotted) imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("compaction_lab")}


def test_every_provided_file_is_used_by_a_notebook_a_lab_module_or_another_provided_file():
    modules = {}
    for path in SOLUTIONS.rglob("*.py"):
        dotted = ".".join(["compaction_lab", *path.relative_to(SOLUTIONS).with_suffix("").parts])
        dotted = dotted.removesuffix(".__init__")
        package = dotted if path.name == "__init__.py" else dotted.rpartition(".")[0]
        modules[dotted] = _imports(path.read_text(encoding="utf-8"), package)
    used: set[str] = set()
    for notebook in NOTEBOOKS.glob("*.ipynb"):
        for cell in nbformat.read(notebook, as_version=4).cells:
            if cell.cell_type == "code":
                source = "\n".join(line for line in cell.source.splitlines() if not line.startswith(("%", "!")))
                used |= _imports(source, "compaction_lab")
    for name, imported in modules.items():
        used |= {item for item in imported if item != name}
    visible = json.loads((SOLUTIONS / "provided" / "checking" / "visible.json").read_text(encoding="utf-8"))
    used |= {f"compaction_lab.{case['function'].rpartition('.')[0]}" for case in visible["cases"]}
    notebook_face = {"compaction_lab.provided.notebook." + name for name in ("cells", "explorers", "status", "views")}
    used |= notebook_face  # the notebook face imports these by name, lazily (provided/notebook/__init__.py)
    used |= {name.rpartition(".")[0] for name in used}  # a package's __init__ runs with any module of it
    provided = {name for name in modules if name.startswith("compaction_lab.provided.")}
    assert sorted(provided - used) == []
