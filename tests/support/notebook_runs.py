"""Running a lab's source notebook with nbclient in a folder beside a copy of a package, as a student's folder is."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from workbook.paths import NOTEBOOKS


def execute(lab, package: Path, folder: Path) -> nbformat.NotebookNode:
    """Run ``lab``'s notebook in ``folder`` beside a copy of the ``compaction_lab`` folder ``package`` (errors kept
    as outputs); return the executed notebook."""
    shutil.copy(NOTEBOOKS / lab.notebook, folder)
    shutil.copytree(package, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    notebook = nbformat.read(folder / lab.notebook, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    ).execute()
    return notebook
