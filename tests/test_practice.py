"""``workbook practice`` and ``workbook check``: a self-study workspace and the focused tests on its package."""

from __future__ import annotations

import filecmp
import shutil

import pytest
from traitlets.config.loader import PyFileConfigLoader

from workbook.cli import main
from workbook.course import DEFAULT_CELL_TIMEOUT, CourseError
from workbook.paths import NOTEBOOKS, SOLUTIONS, STARTERS, TESTS
from workbook.practice import check_command, practice
from workbook.starters import modules

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("practice") / "labs"
    assert main(["practice", str(folder)]) == 0
    return folder


def test_the_workspace_holds_released_notebooks_and_a_fresh_starter_package(workspace):
    notebooks = sorted(workspace.glob("*.ipynb"))
    assert [path.name for path in notebooks] == sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    for path in notebooks:
        assert "HIDDEN TESTS" not in path.read_text() and "BEGIN SOLUTION" not in path.read_text()
    names = modules(STARTERS)
    assert modules(workspace / "compaction_lab") == names
    config = PyFileConfigLoader("nbgrader_config.py", path=str(workspace)).load_config()
    assert config.Execute.timeout == DEFAULT_CELL_TIMEOUT, "Validate in the workspace uses the labs' time limit"
    assert filecmp.cmpfiles(STARTERS, workspace / "compaction_lab", names, shallow=False)[1:] == ([], [])


def test_practice_never_overwrites_a_workspace(workspace):
    with pytest.raises(CourseError, match="is not empty"):
        practice(workspace)


def test_check_runs_the_focused_tests_of_one_lab_on_the_workspace_package(workspace, tmp_path, capfd):
    command = check_command(workspace, 1)
    assert command[3:] == [str(TESTS / "test_records.py"), "-q", "-p", "no:cacheprovider",
                           "-p", "workbook.focused_tests", "--timeout", str(DEFAULT_CELL_TIMEOUT),
                           "--lab-package", str(workspace / "compaction_lab"), "--focused-lab", "1"]
    assert main(["check", "1", "--workspace", str(workspace)]) == 1  # the starter: not implemented yet
    out = capfd.readouterr().out
    assert out.splitlines()[-1].startswith("3 failed in ")
    assert "deselected" not in out
    done = tmp_path / "done"
    shutil.copytree(workspace / "compaction_lab", done / "compaction_lab")
    shutil.copyfile(SOLUTIONS / "records.py", done / "compaction_lab" / "records.py")
    assert main(["check", "1", "--workspace", str(done)]) == 0
    assert capfd.readouterr().out.splitlines()[-1].startswith("3 passed in ")


def test_check_without_a_lab_runs_the_fourteen_focused_tests_of_the_five_files(workspace, capfd):
    command = check_command(workspace)
    assert command[3:8] == [str(TESTS / f"test_{name}.py")
                            for name in ("records", "grouping", "budget", "compaction", "resumption")]
    assert "--focused-lab" not in command
    assert main(["check", "--workspace", str(workspace)]) == 1
    assert capfd.readouterr().out.splitlines()[-1].startswith("14 failed in ")


def test_check_names_a_missing_package_and_a_wrong_lab(tmp_path, capsys):
    assert main(["check", "--workspace", str(tmp_path)]) == 1
    assert "no compaction_lab/ package" in capsys.readouterr().out
    (tmp_path / "compaction_lab").mkdir()
    (tmp_path / "compaction_lab" / "__init__.py").write_text("")
    assert main(["check", "6", "--workspace", str(tmp_path)]) == 1
    assert "there is no lab 6" in capsys.readouterr().out
