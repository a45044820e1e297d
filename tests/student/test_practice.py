"""``workbook practice``: a self-study workspace and the JupyterLab a student gets on it (the server itself is
started in tests/student/test_student_loop.py)."""

from __future__ import annotations

import filecmp
import json
import sys
from pathlib import Path

import pytest
from packages import STARTER_PACKAGE

from workbook.cli.main import main
from workbook.course.packages import modules
from workbook.errors import CourseError
from workbook.paths import NOTEBOOKS
from workbook.student.practice import CONFIG, lab_command, practice

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("practice") / "labs"
    assert main(["practice", str(folder), "--no-lab"]) == 0
    return folder


def test_the_workspace_holds_released_notebooks_and_a_fresh_starter_package(workspace):
    notebooks = sorted(workspace.glob("*.ipynb"))
    assert [path.name for path in notebooks] == sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    for path in notebooks:
        assert "HIDDEN TESTS" not in path.read_text() and "BEGIN SOLUTION" not in path.read_text()
    names = modules(STARTER_PACKAGE)
    assert modules(workspace / "compaction_lab") == names
    assert filecmp.cmpfiles(STARTER_PACKAGE, workspace / "compaction_lab", names, shallow=False)[1:] == ([], [])


def test_practice_never_overwrites_a_workspace(workspace):
    with pytest.raises(CourseError, match="is not empty"):
        practice(workspace)


def test_no_lab_prints_next_steps_with_full_paths(tmp_path, capsys):
    folder = tmp_path / "labs"
    assert main(["practice", str(folder), "--no-lab"]) == 0
    out = capsys.readouterr().out
    workbook = Path(sys.executable).absolute().parent / "workbook"
    assert f"next: {workbook} practice {folder}   (JupyterLab on your labs)" in out
    assert f"then, after editing a lab: {workbook} check 1 --workspace {folder}" in out
    assert main(["practice", str(folder), "--no-lab"]) == 0  # an existing workspace is opened, not rewritten
    assert "wrote" not in capsys.readouterr().out


def test_jupyterlab_gets_the_students_extensions_first_on_its_config_path(workspace, monkeypatch):
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", "/etc/elsewhere")
    command, environment = lab_command(workspace, ["--no-browser"])
    assert command == [sys.executable, "-m", "jupyterlab", str(workspace), "--no-browser"]
    assert environment["JUPYTER_CONFIG_PATH"] == f"{CONFIG}:/etc/elsewhere"
    disabled = json.loads((CONFIG / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert {name for name, off in disabled.items() if off} >= {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:assignment-list",
        "@jupyter/nbgrader:course-list",
        "@jupyter/nbgrader:menu",
    }
    server = json.loads((CONFIG / "jupyter_server_config.d" / "workbook-practice.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"] == {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.assignment_list": False,
        "nbgrader.server_extensions.course_list": False,
        "nbgrader.server_extensions.validate_assignment": True,
    }


def test_a_vietnamese_workspace_is_released_in_vietnamese(tmp_path):
    folder = tmp_path / "labs"
    assert main(["practice", str(folder), "--no-lab", "--language", "vi"]) == 0
    lab2 = json.loads((folder / "02_interaction_grouping.ipynb").read_text(encoding="utf-8"))
    assert lab2["metadata"]["workbook"]["language"] == "vi"
    assert "".join(lab2["cells"][0]["source"]).startswith("# Bài thực hành 2: nhóm tương tác")
    assert "BEGIN SOLUTION" not in json.dumps(lab2)
    assert (folder / "compaction_lab" / "provided" / "language.txt").read_text(encoding="utf-8") == "vi\n"
