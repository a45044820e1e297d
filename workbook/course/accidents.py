"""Honest accidents in a submission: what nbgrader is configured to forgive, and the notes that say so.

Students copy cells, delete them, rename notebooks and edit locked cells by accident. nbgrader already
handles most of it while it sanitizes a submitted notebook, and logs what it did; this module makes the
rest work and turns nbgrader's log into one sentence per accident for the student's status:

- a copied grade cell (JupyterLab copies its metadata): nbgrader's ``DeduplicateIds`` keeps the last cell
  with that ``grade_id`` and empties the others' nbgrader metadata, which nbgrader's own schema check then
  rejects ("Outdated schema version: 0"), failing the notebook. ``DropClearedMetadata`` (right after
  ``DeduplicateIds``) removes the emptied metadata, so the copy is an ordinary cell and the grade cell
  counts once;
- a deleted grade cell: nbgrader's ``OverwriteCells.add_missing_cells`` restores it from the gradebook's
  copy of the release. ``RestoreMissingCells`` is nbgrader's ``OverwriteCells`` with one fix (see it);
- an edited locked cell: ``OverwriteCells`` puts the released source back and logs a checksum change;
- a renamed notebook (``03_budget_projection-Copy1.ipynb``): ``plan_notebooks`` finds the one copy holding
  the missing notebook's grade cells; it is graded as that notebook (``stage_renamed`` gives nbgrader a
  copy of the submission with the file renamed; ``submitted/`` is never changed).

``log_notes`` reads nbgrader's log of one notebook for those events.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells
from nbgrader.utils import is_locked

NBGRADER_EVENTS = (
    (
        re.compile(r"Cell with id '([^']+)' exists multiple times!"),
        "a copy of cell {0} was ignored (the original counts once)",
    ),
    (
        re.compile(r"Missing grade cell (\S+) encountered, adding to notebook"),
        "cell {0} was missing: restored from the release and graded",
    ),
    (re.compile(r"Attribute 'checksum' for cell (\S+) has changed!"), "locked cell {0} was edited: graded as released"),
    (
        re.compile(r"Attribute '(cell_type|locked|points)' for cell (\S+) has changed!"),
        "cell {1}'s {0} was changed: graded as released",
    ),
    (
        re.compile(r"Cell '([^']+)' does not exist in the database"),
        "cell {0} does not belong to this notebook: graded as an ordinary cell",
    ),
)
"""nbgrader 0.9 log messages of what it repaired in a submitted notebook, and the note each becomes."""

FAILURE_LINE = re.compile(r"^\s*(?:[\w.]+\.)?(\w+(?:Error|Exception|Interrupt): .{0,160})", re.MULTILINE)


class DropClearedMetadata(NbGraderPreprocessor):
    """Sanitize step after nbgrader's ``DeduplicateIds``: remove the empty nbgrader metadata it leaves on
    every copy of a grade cell but the last, so nbgrader's schema check passes and the copy is graded as
    an ordinary cell."""

    def preprocess_cell(
        self, cell: NotebookNode, resources: ResourcesDict, index: int
    ) -> tuple[NotebookNode, ResourcesDict]:
        """Drop ``cell.metadata.nbgrader`` when it is ``{}``."""
        if cell.metadata.get("nbgrader") == {}:
            del cell.metadata["nbgrader"]
        return cell, resources


class RestoreMissingCells(OverwriteCells):
    """nbgrader's ``OverwriteCells``, whose ``add_missing_cells`` also restores a grade cell that follows a
    locked cell.

    nbgrader 0.9.6 puts a missing grade cell after the source cell before it, which it looks up among the
    submission's grade and solution cells only: for a lab's first test (after the locked setup cell) and
    its written answer (after the locked source view) that lookup raises ``KeyError`` and the notebook
    fails. While nbgrader adds the missing cells, each locked cell of the submission is also marked as a
    solution cell, so nbgrader finds it; the marks are removed right after.
    """

    def add_missing_grade_cells(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        """nbgrader's ``add_missing_grade_cells`` with every locked cell findable (see the class)."""
        marked = [cell for cell in nb.cells if is_locked(cell) and not cell.metadata.nbgrader.get("solution")]
        for cell in marked:
            cell.metadata.nbgrader["solution"] = True
        try:
            return super().add_missing_grade_cells(nb, resources)
        finally:
            for cell in marked:
                cell.metadata.nbgrader["solution"] = False


def log_notes(log: str) -> list[str]:
    """The notes for what nbgrader's ``log`` (of one notebook) says it repaired, each once, in log order."""
    notes: list[str] = []
    for line in log.splitlines():
        for pattern, note in NBGRADER_EVENTS:
            found = pattern.search(line)
            if found and note.format(*found.groups()) not in notes:
                notes.append(note.format(*found.groups()))
    return notes


def failure_reason(log: str) -> str:
    """The last exception line of ``log`` other than nbgrader's summary (e.g. ``DeadKernelError: Kernel
    died``); empty when there is none."""
    lines = [line for line in FAILURE_LINE.findall(log) if not line.startswith("NbGraderException")]
    return lines[-1] if lines else ""


def grade_ids(path: Path) -> set[str]:
    """The nbgrader grade ids in the notebook file ``path`` (empty when it cannot be read as a notebook)."""
    try:
        notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    except (OSError, ValueError, AttributeError, KeyError):
        return set()
    return {
        cell.metadata.nbgrader["grade_id"]
        for cell in notebook.get("cells", [])
        if isinstance(cell.get("metadata", {}).get("nbgrader"), dict) and cell.metadata.nbgrader.get("grade_id")
    }


@dataclass(frozen=True)
class NotebookPlan:
    """What nbgrader grades of one submission: ``files`` maps each assignment notebook (its name without
    ``.ipynb``) to the submitted file graded as it (its own, or a renamed copy), ``missing`` the notebooks
    with neither; ``notes`` say what was missing, renamed or extra."""

    files: dict[str, str]
    missing: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def renamed(self) -> dict[str, str]:
        """The notebooks graded from a renamed copy: notebook -> the copy's file name."""
        return {name: file for name, file in self.files.items() if file != f"{name}.ipynb"}


def plan_notebooks(folder: Path, notebooks: dict[str, set[str]]) -> NotebookPlan:
    """Match the submission ``folder``'s ``.ipynb`` files to the assignment's ``notebooks`` (name -> its
    grade ids). A notebook that is missing is graded from the one extra file holding some of its grade ids
    and no other notebook's (a copy JupyterLab made or a rename); with none or several such files it is
    missing. Extra files are named in a note and not graded."""
    submitted = sorted(path.name for path in folder.glob("*.ipynb") if path.is_file() and not path.is_symlink())
    files = {name: f"{name}.ipynb" for name in notebooks if f"{name}.ipynb" in submitted}
    extra = [name for name in submitted if name.removesuffix(".ipynb") not in notebooks]
    owners = {file: {name for name, ids in notebooks.items() if ids & grade_ids(folder / file)} for file in extra}
    notes, missing = [], []
    for name in sorted(set(notebooks) - set(files)):
        copies = [file for file, names in owners.items() if names == {name}]
        if len(copies) == 1:
            files[name] = copies[0]
            notes.append(f"{name}.ipynb missing: graded its renamed copy {copies[0]} in its place")
        else:
            missing.append(name)
            which = f" (several copies: {', '.join(copies)}; none graded)" if copies else ""
            notes.append(
                f"{name}.ipynb missing{which}: its written answer scores 0, its tests are graded from your code"
            )
    notes += [f"extra notebook {file} not graded" for file in extra if file not in files.values()]
    return NotebookPlan(dict(sorted(files.items())), tuple(missing), tuple(notes))


def stage_renamed(submission: Path, plan: NotebookPlan, staged: Path) -> Path:
    """Copy ``submission`` to ``staged`` (replacing it; links copied as links) with each renamed copy of
    ``plan`` under its notebook's name, for nbgrader to grade; return ``staged``."""
    if staged.exists():
        shutil.rmtree(staged)
    shutil.copytree(submission, staged, symlinks=True)
    for name, file in plan.renamed.items():
        (staged / file).rename(staged / f"{name}.ipynb")
    return staged
