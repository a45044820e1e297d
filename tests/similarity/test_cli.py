"""``workbook similarity``: the pairs printed, the notice, a bad threshold refused; nothing written."""

from __future__ import annotations

import shutil

from similar_class import submitted_course

from workbook.cli.main import main
from workbook.course.packages import starter_package
from workbook.paths import SOLUTIONS


def test_the_pair_is_printed_with_its_shares_and_the_notice(tmp_path, capsys):
    students = {name: starter_package(tmp_path / "packages" / name / "compaction_lab") for name in ("ann", "bob", "cy")}
    for name in ("ann", "bob"):
        shutil.copyfile(SOLUTIONS / "resumption.py", students[name] / "resumption.py")
    course = submitted_course(tmp_path / "course", students)
    before = sorted(path for path in course.rglob("*"))
    assert main(["similarity", "--course", str(course), "--lab", "5"]) == 0
    out = capsys.readouterr().out
    assert "ann" in out and "bob" in out and "cy" not in out and "100%" in out
    assert "a reason to look, not a verdict" in out and "no grade is changed" in out
    assert sorted(path for path in course.rglob("*")) == before
    assert main(["similarity", "--course", str(course), "--lab", "4"]) == 0
    assert "no pair reaches the threshold" in capsys.readouterr().out


def test_a_threshold_out_of_range_is_refused(tmp_path, capsys):
    course = submitted_course(tmp_path / "course", {})
    assert main(["similarity", "--course", str(course), "--threshold", "1.5"]) == 1
    assert "threshold: expected a share above 0 and at most 1, got 1.5" in capsys.readouterr().out
