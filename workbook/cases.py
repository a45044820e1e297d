"""The grader's view of the cases: visible and hidden, loaded from files, with their points and twins.

Visible cases are the package's (``compaction_lab/provided/cases/<module>.py``), hidden ones the grader's
(``workbook/hidden_cases/<module>.py``, copied into a course as ``grading/hidden_cases``). Both are loaded
from files, so a course's edited copies are what its judge and ``workbook validate --course`` use. Points
come from the notebooks' grade cells (nbgrader metadata); every autograded cell must have cases.

A *twin* is a case with every entry id and tool-call id renamed to a random name drawn for the grading run
(``u1`` becomes ``id-3f9a0c1e``, say; nothing of the old name is left to strip): a correct function passes
it as it passes the case; a function, or a tampered runner, that returns the values shown in the notebook
does not. (A submission could still match a twin to its case by the shape of the inputs; the hidden cases,
whose inputs it never sees, are what such a submission cannot answer.)

``python -m workbook.cases`` writes the visible cases' expected observations (``expected.json`` in the
solutions package; ``--check`` fails when it is stale); ``workbook.starters`` copies it to the starters.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import secrets
import sys
from pathlib import Path
from typing import Any

import nbformat

from .labs import LABS
from .paths import HIDDEN_CASES, NOTEBOOKS, SOLUTIONS
from .reference import import_reference

VISIBLE_CASES = SOLUTIONS / "provided" / "cases"
ID_KEYS = frozenset({"id", "parentId", "firstKeptEntryId", "toolCallId"})
ID_ARGUMENTS = frozenset({"id", "first_kept_entry_id", "leaf_id"})
"""Keys (in entries) and keyword arguments whose string values are ids: what a twin renames."""


class CaseError(ValueError):
    """The case tables are inconsistent with the notebooks or each other; the message names the case."""


def load_cases(folder: Path, hidden: bool) -> tuple[Any, ...]:
    """The ``CASES`` of ``folder/<lab module>.py`` for every lab, in lab order (visible modules are loaded
    inside the reference package, so their relative imports resolve there)."""
    import_reference()
    found: list[Any] = []
    for lab in LABS:
        path = folder / f"{lab.module}.py"
        if not path.exists():
            continue
        name = f"compaction_lab.provided.cases._{'hidden' if hidden else 'visible'}_{lab.module}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        module.__package__ = "compaction_lab.provided.cases"
        sys.modules[name] = module
        spec.loader.exec_module(module)
        found.extend(module.CASES)
    if any(case.hidden != hidden for case in found):
        raise CaseError(f"{folder}: every case there must have hidden={hidden}")
    return tuple(found)


def grade_points(notebooks: Path = NOTEBOOKS) -> tuple[dict[str, float], dict[str, float]]:
    """``({grade_id: points}, {grade_id: extra-credit points})`` of the autograded cells (grade cells that are
    not answers) of ``notebooks``. An extra-credit cell has nbgrader ``points`` 0 and its points in the cell's
    ``workbook.extra_credit`` metadata: the judge writes them as nbgrader's extra credit, outside the lab's
    points."""
    points, extra = {}, {}
    for path in sorted(notebooks.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            flags = cell.metadata.get("nbgrader", {})
            if flags.get("grade") and not flags.get("solution"):
                points[flags["grade_id"]] = float(flags.get("points", 0))
                if "extra_credit" in cell.metadata.get("workbook", {}):
                    extra[flags["grade_id"]] = float(cell.metadata["workbook"]["extra_credit"])
    return points, extra


@dataclasses.dataclass(frozen=True)
class CaseBook:
    """Every case the judge runs (``cases``, visible then hidden), the points of each grade cell and the
    extra-credit points of the extra-credit cells."""

    cases: tuple[Any, ...]
    points: dict[str, float]
    extra: dict[str, float] = dataclasses.field(default_factory=dict)

    def of_lab(self, lab: int) -> tuple[Any, ...]:
        """The cases of ``lab``, visible first."""
        return tuple(case for case in self.cases if case.lab == lab)

    def check(self) -> None:
        """Raise ``CaseError`` for a duplicate key, a case of an unknown grade cell, or an autograded cell
        without cases."""
        keys = [case.key for case in self.cases]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise CaseError(f"cases defined twice: {', '.join(duplicates)}")
        unknown = sorted({case.grade_id for case in self.cases} - self.points.keys())
        if unknown:
            raise CaseError(f"cases of grade cells no notebook has: {', '.join(unknown)}")
        empty = sorted(self.points.keys() - {case.grade_id for case in self.cases})
        if empty:
            raise CaseError(f"autograded cells without cases: {', '.join(empty)}")


def case_book(visible: Path = VISIBLE_CASES, hidden: Path = HIDDEN_CASES, notebooks: Path = NOTEBOOKS) -> CaseBook:
    """Load and check the cases of ``visible`` and ``hidden`` against the grade cells of ``notebooks``."""
    book = CaseBook(load_cases(visible, hidden=False) + load_cases(hidden, hidden=True), *grade_points(notebooks))
    book.check()
    return book


class TwinNames:
    """The renaming of one grading run: each id gets a fresh random name (``id-`` and 8 hex digits), the same
    for every case of the run, different in every run."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __getitem__(self, original: str) -> str:
        while original not in self._names:
            name = f"id-{secrets.token_hex(4)}"
            if name not in self._names.values():
                self._names[original] = name
        return self._names[original]


def twin(case: Any, names: TwinNames) -> Any:
    """``case`` with every id in its inputs (and its ``naming``) renamed by ``names``."""
    ids: set[str] = set()
    _collect_ids(list(case.args), ids)
    ids.update(value for key, value in case.kwargs.items()
               if key in ID_ARGUMENTS and isinstance(value, str) and value)
    rename = {value: names[value] for value in sorted(ids)}
    naming = tuple(rename.get(item, item) if isinstance(item, str) else tuple(rename.get(word, word) for word in item)
                   for item in case.naming)
    return dataclasses.replace(case, args=tuple(_renamed(list(case.args), rename)),
                               kwargs=_renamed(dict(case.kwargs), rename), naming=naming,
                               call=f"{case.call} (with its ids renamed)")


def _collect_ids(value: Any, ids: set[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _collect_ids(item, ids)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str) and item:
                ids.add(item)
            _collect_ids(item, ids)


def _renamed(value: Any, rename: dict[str, str]) -> Any:
    if isinstance(value, str):
        return rename.get(value, value)
    if isinstance(value, list):
        return [_renamed(item, rename) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, rename) for key, item in value.items()}
    return value


def reference_observation(case: Any) -> dict[str, Any]:
    """What the reference solutions do with ``case``, observed in this (the grader's) process."""
    import_reference()
    from compaction_lab.provided.wire import observe

    return observe(case.function, list(case.args), dict(case.kwargs))


def expected_file_text(visible: Path = VISIBLE_CASES) -> str:
    """The text of ``expected.json``: the reference's observation of every visible case, by key."""
    observations = {case.key: reference_observation(case) for case in load_cases(visible, hidden=False)}
    return json.dumps(observations, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m workbook.cases [--check]``: write ``expected.json``, or exit 1 if it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if expected.json differs from the reference")
    args = parser.parse_args(argv)
    target = VISIBLE_CASES / "expected.json"
    text = expected_file_text()
    if args.check:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is stale; run python -m workbook.cases")
            return 1
        print(f"{target} matches the reference solutions")
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
