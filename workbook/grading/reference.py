"""The reference package (``solutions/compaction_lab``) imported into the grader's own process.

The grader builds case inputs from the reference's scenarios and computes expected outcomes with the
reference solutions. It never imports a student's package: student code runs only in a sandboxed
runner (``workbook.grading.judge``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from workbook.paths import SOLUTIONS


def import_reference() -> ModuleType:
    """Import ``compaction_lab`` from ``SOLUTIONS`` and return it; ``ImportError`` naming both folders if
    another ``compaction_lab`` was imported first."""
    if str(SOLUTIONS.parent) not in sys.path:
        sys.path.insert(0, str(SOLUTIONS.parent))
    import compaction_lab

    if Path(compaction_lab.__file__).resolve().parent != SOLUTIONS.resolve():
        raise ImportError(
            f"the grader needs the reference labs in {SOLUTIONS}, "
            f"but compaction_lab was imported from {Path(compaction_lab.__file__).parent}"
        )
    return compaction_lab
