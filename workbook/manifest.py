"""The labs manifest (``compaction_lab/provided/labs.py``) read from the solutions, without importing the lab package.

The tooling never imports ``compaction_lab`` itself (a student's copy may be on the path instead);
it loads only the manifest file, which has no imports of its own.
"""

from __future__ import annotations

from workbook.module_files import load_module
from workbook.paths import SOLUTIONS

_NAME = "workbook._lab_manifest"


def _load():
    return load_module(_NAME, SOLUTIONS / "provided" / "labs.py")


_MANIFEST = _load()
LABS = _MANIFEST.LABS
"""The five ``Lab`` records (number, title, module, function, notebook), in order."""
lab_record = _MANIFEST.lab
"""``lab_record(number)``: the ``Lab`` record of lab ``number``; ``KeyError`` naming the number for any other."""


def lab_of_notebook(notebook: str) -> int | None:
    """Return the lab number whose notebook is ``notebook`` (a name with or without ``.ipynb``), else None."""
    stem = notebook.removesuffix(".ipynb")
    return next((lab.number for lab in LABS if lab.notebook.removesuffix(".ipynb") == stem), None)
