"""``workbook check`` without a lab: where you stand in every lab, one line each, then the next thing to do, in
the workspace's language."""

from __future__ import annotations

import shutil
from pathlib import Path

from workbook.authoring.samples import buggy
from workbook.cli.main import main
from workbook.paths import SOLUTIONS
from workbook.student.check import run_checks


def solved(tmp_path: Path) -> Path:
    """A workspace holding a copy of the reference package."""
    shutil.copytree(SOLUTIONS, tmp_path / "labs" / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "labs"


def lines_of(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_the_overview_ends_with_the_first_lab_to_finish(tmp_path: Path, capsys) -> None:
    folder = buggy(tmp_path / "labs" / "compaction_lab").parent  # lab 3 keeps messages[-3:]
    assert main(["check", "--workspace", str(folder)]) == 1
    *labs, next_step = lines_of(capsys)
    assert [line.split(";")[0] for line in labs] == [
        "lab 1: 4/4 visible checks pass",
        "lab 2: 5/5 visible checks pass",
        "lab 3: 2/5 visible checks pass",
        "lab 4: 11/11 visible checks pass",
        "lab 5: 7/7 visible checks pass",  # lab 3 fails its checks: lab 5 is checked with the course's answers
    ]
    assert next_step == "Next: lab 3: make window_31_keeps_two pass; `workbook hint 3` gives a hint."
    report = run_checks(folder, language="zh")
    assert report.next_step == "下一步：实验 3：让 window_31_keeps_two 通过；`workbook hint 3` 给出提示。"
    assert report.lines[2]["failing"][:2] == ["window_31_keeps_two", "window_30_keeps_one"]


def test_one_lab_prints_its_line_only_and_a_stopped_run_no_next_step(tmp_path: Path, capsys) -> None:
    folder = solved(tmp_path)
    assert main(["check", "2", "--workspace", str(folder)]) == 0
    assert lines_of(capsys) == ["lab 2: 5/5 visible checks pass; hidden tests run at grading"]
    path = folder / "compaction_lab" / "budget.py"
    path.write_text(path.read_text() + "\n\ndef build_context(active_path, options):\n    import os\n    os._exit(3)\n")
    report = run_checks(folder)
    assert (report.lines[2]["summary"], report.next_step) == ("lab 3: the checks ended with exit status 3", "")
