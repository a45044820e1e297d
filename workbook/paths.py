"""Where the workbook's own files are: the repository this package is installed from."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions" / "compaction_lab"
STARTERS = REPO / "starters" / "compaction_lab"
NOTEBOOKS = REPO / "notebooks"
TESTS = REPO / "tests"
HIDDEN_CASES = Path(__file__).resolve().parent / "hidden_cases"
