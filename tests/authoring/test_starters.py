"""The maintainer's checks on the student package: in sync with the solutions, and failing
only with each lab's own ``LabNotImplementedError`` until the student writes that lab."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import pytest
from packages import STARTER_PACKAGE

from workbook.authoring.samples import buggy
from workbook.authoring.starters import out_of_sync
from workbook.paths import REPO, STARTERS

LAB_TEST_FILES = ["test_records.py", "test_grouping.py", "test_budget.py", "test_compaction.py", "test_resumption.py"]
FOCUSED_PER_LAB = {1: 3, 2: 3, 3: 3, 4: 2, 5: 3}


def run_lab_tests(package: str, tmp_path: Path, *selection: str) -> list[ElementTree.Element]:
    """Run the lab test files against ``package`` in a fresh interpreter; return the testcases."""
    report = tmp_path / "report.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            "--lab-package",
            package,
            *selection,
            *(str(REPO / "tests" / "labs" / name) for name in LAB_TEST_FILES),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    return list(ElementTree.parse(report).iter("testcase"))


def lab_of(case: ElementTree.Element) -> int:
    return int(re.match(r"test_lab(\d)_", case.get("name"))[1])


def test_starters_are_generated_from_the_solutions():
    assert out_of_sync() == [], "run: python -m workbook.authoring.starters"


def test_focused_tests_are_fourteen_split_three_three_three_two_three(tmp_path):
    cases = run_lab_tests("solutions", tmp_path, "-m", "focused")
    assert Counter(lab_of(case) for case in cases) == FOCUSED_PER_LAB
    assert [case for case in cases if case.find("failure") is not None] == []


def test_starter_tests_fail_only_with_their_own_labs_error(tmp_path):
    cases = run_lab_tests("starters", tmp_path)
    failures = {case.get("name"): case.find("failure") for case in cases}
    assert len(cases) > 60
    for case in cases:
        failure = failures[case.get("name")]
        if failure is None:
            continue
        lab = lab_of(case)
        text = failure.get("message", "") + (failure.text or "")
        assert "LabNotImplementedError" in text and f"Lab {lab} (" in text, (case.get("name"), text[-600:])
    focused = run_lab_tests("starters", tmp_path, "-m", "focused")
    assert all(case.find("failure") is not None for case in focused)


@pytest.mark.parametrize("lab", [1, 2, 3, 4, 5])
def test_not_implemented_error_names_lab_function_and_notebook(lab):
    from compaction_lab.provided.errors import LabNotImplementedError
    from compaction_lab.provided.labs import lab as lab_info

    error = LabNotImplementedError(lab, lab_info(lab).function)
    assert isinstance(error, NotImplementedError) and error.lab == lab
    assert str(error) == (
        f"Lab {lab} ({lab_info(lab).title}): {lab_info(lab).function}() is not implemented yet; "
        f"see {lab_info(lab).notebook}"
    )


def test_selecting_the_last_three_messages_fails_lab3s_focused_tests(tmp_path):
    package = buggy(tmp_path / "buggy" / "compaction_lab")
    cases = run_lab_tests(str(package), tmp_path, "-m", "focused and lab3")
    assert len(cases) == 3
    assert all(case.find("failure") is not None for case in cases)


IMPORTED = re.compile(r"\b(?:from|import) compaction_lab\.(\w+)")


def test_the_package_top_holds_the_five_lab_modules_and_everything_provided_sits_in_provided():
    """Issue 12: a student sees the five files they write first; every import path (notebooks, README, tests,
    workbook, solutions) names a lab module or ``compaction_lab.provided``. ``starters/`` holds only the lab
    modules (issue 22): the starter package's ``provided/`` is the solutions' own."""
    from compaction_lab.provided.labs import LABS

    labs = sorted(f"{lab.module}.py" for lab in LABS)
    assert sorted(path.name for path in STARTERS.iterdir() if path.name != "__pycache__") == sorted(
        ["__init__.py", *labs]
    )
    for package in (REPO / "solutions" / "compaction_lab", STARTER_PACKAGE):
        top = sorted(path.name for path in package.iterdir() if path.name != "__pycache__")
        assert top == sorted(["__init__.py", "provided", *labs]), package
        assert {"checking", "notebook", "scenarios.py", "estimators.py", "pi_import.py", "repair.py", "stores.py"} <= {
            path.name for path in (package / "provided").iterdir()
        }
    allowed = {lab.module for lab in LABS} | {"provided"}
    files = [
        *(REPO / "notebooks").glob("*.ipynb"),
        REPO / "README.md",
        *(
            path
            for folder in ("tests", "workbook", "solutions", "benchmarks")
            for path in (REPO / folder).rglob("*.py")
        ),
    ]
    for path in files:
        assert set(IMPORTED.findall(path.read_text(encoding="utf-8"))) <= allowed, path
