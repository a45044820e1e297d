"""``workbook build`` and ``workbook release``: the course layout, its nbgrader config, and a release
that holds no hidden test, no solution and only the starter package."""

from __future__ import annotations

import filecmp
import json
import sys
from io import StringIO
from pathlib import Path

import pytest
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from rich.console import Console
from traitlets.utils.importstring import import_item

from workbook.course.packages import starter_package
from workbook.manifest import LABS
from workbook.cli.main import main
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.config import AUTOGRADE_PREPROCESSORS
from workbook.errors import CourseError
from workbook.pipeline.build import build
from workbook.paths import NOTEBOOKS, STARTERS
from workbook.pipeline.release import SOLUTION, ReleaseLeakError, check_release, notebook_secrets
from workbook.grading.kernel import SandboxExecute, SandboxKernelManager
from workbook.pipeline.inert import InertNotebook
from workbook.grading.scoring import JudgeNotebook, course_case_book
from workbook.authoring.starters import MarkerError, replace_region
from workbook.course.packages import modules

LAB_MODULES = [
    "compaction_lab/records.py",
    "compaction_lab/grouping.py",
    "compaction_lab/budget.py",
    "compaction_lab/compaction.py",
    "compaction_lab/resumption.py",
]


def same_as_starter_package(package: Path, scratch: Path) -> None:
    """``package`` holds exactly the files of a starter package (``starter_package``), byte for byte."""
    expected = starter_package(scratch / "expected-starters")
    assert modules(package) == modules(expected)
    assert filecmp.cmpfiles(expected, package, modules(expected), shallow=False)[1:] == ([], [])


def test_build_lays_out_source_config_and_gradebook(tmp_path, capsys):
    assert main(["build", "--course", str(tmp_path / "course")]) == 0
    next_step = capsys.readouterr().out.splitlines()[-1]
    # The full path (no venv on PATH), and the course it was given, so the line runs as printed.
    workbook = Path(sys.executable).absolute().parent / "workbook"
    assert next_step == f"next: {workbook} release --course {tmp_path / 'course'}"
    course = Course(tmp_path / "course")
    assert sorted(path.name for path in course.source.glob("*.ipynb")) == sorted(
        path.name for path in NOTEBOOKS.glob("*.ipynb")
    )
    package = course.source / "compaction_lab"
    same_as_starter_package(package, tmp_path)
    assert (course.root / "gradebook.db").is_file()
    assert sorted(path.relative_to(course.cases).as_posix() for path in course.cases.rglob("*.py")) == sorted(
        [f"{lab.module}/{kind}.py" for lab in LABS for kind in ("visible", "hidden", "variants")]
    ), "the course's cases and generators, beside source/, never in it (the bank stays with the project)"
    config = course.config()
    assert config.Autograde.exclude_overwriting == {ASSIGNMENT: LAB_MODULES}
    assert config.Execute.timeout == 20
    assert course.coursedir().db_url == f"sqlite:///{course.root}/gradebook.db"
    assert config.SandboxKernelManager.isolation == "auto"
    assert config.Autograde.autograde_preprocessors == list(AUTOGRADE_PREPROCESSORS)


def test_the_autograde_preprocessors_are_nbgraders_with_the_sandboxed_execute_the_judge_and_inert_last():
    """nbgrader's own list, Execute swapped, the judge and then InertNotebook appended: an nbgrader upgrade that
    changes the list shows up here."""
    sandboxed = [import_item(name) for name in AUTOGRADE_PREPROCESSORS]
    nbgraders = Autograde.class_traits()["autograde_preprocessors"].default()
    assert [SandboxExecute if item is Execute else item for item in nbgraders] + [JudgeNotebook, InertNotebook] == sandboxed
    assert SandboxExecute().kernel_manager_class is SandboxKernelManager


def test_build_refuses_an_existing_course_unless_forced(tmp_path):
    course = build(tmp_path / "course")
    marker = course.root / "submitted" / "ada" / ASSIGNMENT / "timestamp.txt"
    marker.parent.mkdir(parents=True)
    marker.write_text("2026-01-01 00:00:00 UTC")
    with pytest.raises(CourseError, match="already a course; pass --force"):
        build(course.root)
    (course.source / "stray.txt").write_text("old")
    build(course.root, force=True)
    assert marker.exists(), "--force must keep submissions"
    assert not (course.source / "stray.txt").exists(), "--force rewrites source/"


def test_build_writes_a_given_database_url(tmp_path):
    url = f"sqlite:///{tmp_path}/elsewhere.db"
    course = build(tmp_path / "course", db_url=url)
    assert course.coursedir().db_url == url
    assert (tmp_path / "elsewhere.db").is_file()


def test_commands_need_a_built_course(tmp_path, capsys):
    assert main(["release", "--course", str(tmp_path / "nothing")]) == 1
    assert "run `workbook build` first" in capsys.readouterr().out


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Course:
    course = build(tmp_path_factory.mktemp("released") / "course")
    printed = StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("workbook.cli.main.command_console", lambda: Console(file=printed, width=300))
        assert main(["release", "--course", str(course.root)]) == 0
    course.root.joinpath("release-output.txt").write_text(printed.getvalue())
    return course


@pytest.mark.slow
def test_release_says_what_handing_it_out_takes(released):
    printed = " ".join(released.root.joinpath("release-output.txt").read_text().split())
    assert "checked: no hidden test, no solution, the package is the starter" in printed
    assert "not handed out yet (the formgrader shows the assignment as draft)" in printed
    assert "formgrader → Manage Assignments → Release" in printed and "workbook practice DIR" in printed


@pytest.mark.slow
def test_release_holds_no_hidden_test_no_solution_and_the_starter_package(released, tmp_path):
    notebooks = sorted(released.release.glob("*.ipynb"))
    assert [path.name for path in notebooks] == sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))
    for path in notebooks:
        text = path.read_text()
        for marker in ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "BEGIN SOLUTION", "END SOLUTION"):
            assert marker not in text, f"{path.name} contains {marker}"
    package = released.release / "compaction_lab"
    same_as_starter_package(package, tmp_path)
    assert not list(released.release.rglob("*solutions*"))


@pytest.mark.slow
def test_release_check_names_a_leaked_hidden_case(released):
    hidden = next(case for case in course_case_book(released).cases if case.hidden)
    target = released.release / "03_budget_projection.ipynb"
    original = target.read_text()
    leaked = {"cell_type": "markdown", "metadata": {}, "source": f"Hint: {hidden.call}"}
    try:
        target.write_text(original.replace('"cells": [', '"cells": [' + json.dumps(leaked) + ",", 1))
        with pytest.raises(ReleaseLeakError, match=f"hidden case {hidden.key}"):
            check_release(released)
    finally:
        target.write_text(original)
    check_release(released)


def test_replace_region_keeps_markers_and_indent():
    source = "def f():\n    x = 1\n    # BEGIN LAB 3\n    return x\n    # END LAB 3\n"
    assert replace_region(source, 3, "y = 2\nreturn y", "m.py") == (
        "def f():\n    x = 1\n    # BEGIN LAB 3\n    y = 2\n    return y\n    # END LAB 3\n"
    )
    with pytest.raises(MarkerError, match="m.py: no BEGIN LAB 2 region"):
        replace_region(source, 2, "pass", "m.py")


def test_replace_region_reaches_a_later_region_of_the_lab():
    source = "# BEGIN LAB 2\nx = 1\n# END LAB 2\n# BEGIN LAB 2\ny = 1\n# END LAB 2\n"
    assert replace_region(source, 2, "y = 2", "m.py", occurrence=1) == (
        "# BEGIN LAB 2\nx = 1\n# END LAB 2\n# BEGIN LAB 2\ny = 2\n# END LAB 2\n"
    )
    with pytest.raises(MarkerError, match="m.py: no BEGIN LAB 2 region number 3"):
        replace_region(source, 2, "pass", "m.py", occurrence=2)


@pytest.mark.slow
def test_release_check_finds_a_leaked_line_with_quotes(released):
    secrets = notebook_secrets(sorted(released.source.glob("*.ipynb")), (SOLUTION,))
    where, line = next((where, line) for where, lines in secrets.items() for line in lines if '"' in line)
    target = released.release / where.split()[0]
    original = target.read_text()
    notebook = json.loads(original)
    notebook["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": line})
    try:
        target.write_text(json.dumps(notebook))
        with pytest.raises(ReleaseLeakError, match=where.split()[1]):
            check_release(released)
    finally:
        target.write_text(original)
    check_release(released)
