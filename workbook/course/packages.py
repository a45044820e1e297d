"""The package folders of a course: a whole starter package, and the files a package holds.

``starters/compaction_lab`` holds only the starter lab modules (``workbook.authoring.starters`` generates them);
the course's ``provided/`` is the solutions' own. A starter package (what ``workbook build`` puts in
``source/``, ``workbook practice`` in a workspace, the demo's blank sample) is the two together.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from workbook.paths import SOLUTIONS, STARTERS


PACKAGE_FILES = ("*.py", "*.json")
"""What a package folder holds: modules, and data such as the visible cases' ``visible.json``."""



IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")



def modules(package: Path) -> list[str]:
    """The package's files (``PACKAGE_FILES``) as paths relative to ``package`` (``budget.py``,
    ``provided/notebook/views.py``, ``provided/checking/visible.json``), sorted."""
    return sorted(
        path.relative_to(package).as_posix()
        for pattern in PACKAGE_FILES
        for path in package.rglob(pattern)
        if "__pycache__" not in path.parts
    )



def starter_package(dest: Path, solutions: Path = SOLUTIONS, starters: Path = STARTERS) -> Path:
    """Write a whole starter package to ``dest`` (a folder that must not exist): the solutions' ``provided/``
    and the starter lab modules. Return ``dest``."""
    shutil.copytree(solutions / "provided", dest / "provided", ignore=IGNORED)
    for module in sorted(starters.glob("*.py")):
        shutil.copyfile(module, dest / module.name)
    return dest

