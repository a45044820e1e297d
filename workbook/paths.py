"""Where the workbook's own files are: the repository this package is installed from."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO / "solutions" / "compaction_lab"
STARTERS = REPO / "starters" / "compaction_lab"
NOTEBOOKS = REPO / "notebooks"


def script(name: str) -> str:
    """The full path of this environment's console script ``name`` (``/home/ada/workbook/.venv/bin/workbook``),
    so a printed next step works without an activated venv and from any folder. The interpreter's path is
    not resolved: in a venv it is a symlink to the base Python, whose folder has no such script."""
    return str(Path(sys.executable).absolute().parent / name)
