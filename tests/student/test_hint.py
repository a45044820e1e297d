"""``workbook hint LAB [CASE]``: the instructor's one-line hint for a failing visible check, from the visible cases
the checks run, in the workspace's language."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import visible_cases
from workbook.authoring.samples import buggy
from workbook.cli.main import main
from workbook.paths import SOLUTIONS

KEEPS_TWO = "Keep whole interactions newest first while their total fits what is available for messages."
KEEPS_ONE_VI = "Bớt một token là tương tác mới thứ hai không còn vừa: dừng ở đó, và nêu lý do."


def copied(tmp_path: Path, package: Path = SOLUTIONS) -> Path:
    """A workspace holding a copy of ``package`` as ``compaction_lab/``."""
    shutil.copytree(package, tmp_path / "labs" / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "labs"


def lines_of(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_every_visible_case_has_a_one_line_hint_and_a_name_unique_in_its_lab() -> None:
    cases = visible_cases()
    assert len(cases) == 65
    assert all(case.hint and "\n" not in case.hint and len(case.hint) <= 110 for case in cases)
    assert max(Counter((case.lab, case.name) for case in cases).values()) == 1


def test_the_first_failing_check_gets_its_hint(tmp_path: Path, capsys) -> None:
    folder = buggy(tmp_path / "labs" / "compaction_lab").parent  # lab 3 keeps messages[-3:]
    assert main(["hint", "3", "--workspace", str(folder)]) == 0
    summary, hint = lines_of(capsys)
    assert summary.startswith("lab 3: 2/5 visible checks pass; window_31_keeps_two: called build_context(")
    assert hint == f"window_31_keeps_two: {KEEPS_TWO}"


def test_a_named_check_gets_its_hint_without_running_in_the_language_asked(tmp_path: Path, capsys) -> None:
    folder = copied(tmp_path, STARTER_PACKAGE)
    assert main(["hint", "3", "window_30_keeps_one", "--workspace", str(folder), "--language", "vi"]) == 0
    assert lines_of(capsys) == [f"window_30_keeps_one: {KEEPS_ONE_VI}"]
    (folder / "compaction_lab" / "provided" / "language.txt").write_text("zh\n", encoding="utf-8")
    assert main(["hint", "2", "result_before_its_call", "--workspace", str(folder)]) == 0
    assert lines_of(capsys) == ["result_before_its_call: 结果可以在交互中出现在其调用之前：在交互关闭时再配对。"]


def test_no_hint_when_nothing_fails(tmp_path: Path, capsys) -> None:
    starters = copied(tmp_path / "starters", STARTER_PACKAGE)
    assert main(["hint", "3", "--workspace", str(starters)]) == 1
    assert lines_of(capsys) == ["lab 3: not started (build_context raises LabNotImplementedError)"]
    assert main(["hint", "2", "--workspace", str(copied(tmp_path / "solved"))]) == 0
    assert lines_of(capsys) == ["lab 2: 5/5 visible checks pass; hidden tests run at grading"]


def printed(capsys) -> str:
    """What was printed, its lines joined as one (rich wraps prose at 80 columns in a pipe)."""
    return " ".join(capsys.readouterr().out.split())


def test_an_unknown_check_or_lab_is_named(tmp_path: Path, capsys) -> None:
    folder = copied(tmp_path)
    assert main(["hint", "2", "nope", "--workspace", str(folder)]) == 1
    assert printed(capsys) == (  # a pipe wraps prose at 80 columns
        "workbook hint: lab 2 has no visible check 'nope'; its checks: example_three_interactions, "
        "results_in_calls_order, result_before_its_call, r_test_answers_unknown_1, r_extra_answers_unknown_1"
    )
    assert main(["hint", "6", "--workspace", str(folder)]) == 1
    assert "workbook hint: lab 6 has no visible checks in " in printed(capsys)
    assert main(["hint", "1", "--workspace", str(tmp_path / "empty")]) == 1
    assert "workbook hint: no compaction_lab/ package in " in printed(capsys)
    (folder / "compaction_lab" / "provided" / "checking" / "visible.json").write_text("{}", encoding="utf-8")
    assert main(["hint", "1", "--workspace", str(folder)]) == 1
    assert "workbook hint: cannot read the visible cases in " in printed(capsys)
