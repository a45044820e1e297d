"""The labs manifest (``compaction_lab/provided/labs.py``) read from the solutions, without importing the lab package.

The tooling never imports ``compaction_lab`` itself (a student's copy may be on the path instead);
it loads only the manifest file, which has no imports of its own.
"""

from __future__ import annotations

import importlib.util
import sys

from .paths import SOLUTIONS

_NAME = "workbook._lab_manifest"


def _load():
    spec = importlib.util.spec_from_file_location(_NAME, SOLUTIONS / "provided" / "labs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module  # dataclasses resolve their module while the class is built
    spec.loader.exec_module(module)
    return module


_MANIFEST = _load()
LABS = _MANIFEST.LABS
"""The five ``Lab`` records (number, title, module, function, notebook), in order."""
lab_record = _MANIFEST.lab
"""``lab_record(number)``: the ``Lab`` record of lab ``number``; ``KeyError`` naming the number for any other."""


def lab_of_notebook(notebook: str) -> int | None:
    """Return the lab number whose notebook is ``notebook`` (a name with or without ``.ipynb``), else None."""
    stem = notebook.removesuffix(".ipynb")
    return next((lab.number for lab in LABS if lab.notebook.removesuffix(".ipynb") == stem), None)
