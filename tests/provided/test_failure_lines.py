"""No line of ``workbook check``, the status light or a feedback page runs past the cut, over every mistake of the
validity bank: each value at most ``VALUE_CHARS``, each line at most ``LINE_CHARS``. The mistakes' labs are
checked in one fresh interpreter (``support/bank_lines.py``), each module swapped in place for its mistake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compaction_lab.provided.checking.cut import LINE_CHARS, MARK, VALUE_CHARS
from workbook.authoring.bank import Mistake, bank, module_of, module_text
from workbook.paths import SOLUTIONS
from workbook.pipeline.feedback import case_lines

SCRIPT = Path(__file__).resolve().parent.parent / "support" / "bank_lines.py"


@pytest.fixture(scope="module")
def shown(tmp_path_factory) -> dict[str, list[str]]:
    """Every line each place shows over the bank's mistakes, by place: ``check``, ``status`` and ``feedback``."""
    items = [[entry.lab, module_of(entry.lab), module_text(entry)] for entry in bank() if isinstance(entry, Mistake)]
    file = tmp_path_factory.mktemp("bank") / "items.json"
    file.write_text(json.dumps(items), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(file)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SOLUTIONS.parent)},
    )
    labs = json.loads(done.stdout)
    assert len(labs) == len(items) > 60
    return {
        "check": [lab["check"] for lab in labs],
        "status": [line for lab in labs for item in lab["status"] for line in item.splitlines()],
        "feedback": [line for lab in labs for line in case_lines(lab["cases"]).splitlines()],
    }


@pytest.mark.parametrize("place", ["check", "status", "feedback"])
def test_no_line_runs_past_the_cut(shown, place):
    lines = shown[place]
    assert max(map(len, lines)) <= LINE_CHARS
    for line in lines:
        for part in line.split(", got ", 1)[1:]:
            got, _, rest = part.partition(", expected ")
            got = got.split(" = ", 1)[-1].removesuffix(" and no error")  # a path before, an error case's words after
            expected = rest.split(" (first difference at ")[0]
            assert len(got) <= VALUE_CHARS and len(expected) <= VALUE_CHARS, line
    assert any(MARK in line for line in lines), "some of the bank's values are long: cut, where they differ marked"
