"""A whole starter package, as a student gets it, assembled once per test process."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from workbook.course.packages import starter_package


def _assembled() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="workbook-starters-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return starter_package(folder / "compaction_lab")


STARTER_PACKAGE = _assembled()
"""The starter package: the starter lab modules and the course's ``provided/`` (``starter_package``)."""
