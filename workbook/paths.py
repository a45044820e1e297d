"""Where the workbook's own files are: the one place that decides it.

The commands need the reference package (``solutions/compaction_lab``), the starter lab modules
(``starters/compaction_lab``), the source notebooks and the course author's lab folders (``labs/``: each lab's
visible and hidden cases and its mistake bank). In a checkout of the repository, or an editable install, they
are the repository's own folders. An installed wheel carries them inside the package, in ``workbook/data/``
(pyproject.toml's ``[tool.hatch.build.targets.wheel.force-include]``), and ``REPO`` is that folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
INSTALLED_DATA = _PACKAGE / "data"
"""The copy of the repository's folders a wheel installs beside the code (absent in a checkout)."""

REPO = INSTALLED_DATA if INSTALLED_DATA.is_dir() else _PACKAGE.parent
SOLUTIONS = REPO / "solutions" / "compaction_lab"
STARTERS = REPO / "starters" / "compaction_lab"
"""The starter lab modules only: a whole starter package is ``authoring.starters.starter_package``."""
NOTEBOOKS = REPO / "notebooks"
LAB_CASES = REPO / "labs"
"""One folder per lab module: ``visible.py`` and ``hidden.py`` (cases), ``mistakes.py`` (the validity bank)."""


def script(name: str) -> str:
    """The full path of this environment's console script ``name`` (``/home/ada/workbook/.venv/bin/workbook``),
    so a printed next step works without an activated venv and from any folder. The interpreter's path is
    not resolved: in a venv it is a symlink to the base Python, whose folder has no such script."""
    return str(Path(sys.executable).absolute().parent / name)
