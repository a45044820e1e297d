"""The grader's view of the cases: visible and hidden, with their points and their twins.

A course author writes a lab's cases in its folder, ``labs/<module>/visible.py`` and ``hidden.py`` (a course
has its own copies in ``COURSE/grading/cases/``, which an instructor may edit), each a ``CASES`` tuple of
``compaction_lab.provided.checking.case.Case``. The visible cases reach the student's package compiled, with
the reference solutions' outcome of each, as ``provided/checking/visible.json`` (``visible_file_text``;
``workbook release`` compiles a course's, ``python -m workbook.authoring.casefile`` the project's). The judge
grades with the visible cases the package holds (what its students have) and the hidden cases of the folder.
Points come from the notebooks' grade cells (nbgrader metadata); every autograded cell must have cases.

A *twin* is a case with every entry id and tool-call id renamed to a random name drawn for the grading run
(``u1`` becomes ``id-3f9a0c1e``, say; nothing of the old name is left to strip): a correct function passes
it as it passes the case; a function, or a tampered runner, that returns the values shown in the notebook
does not. (A submission could still match a twin to its case by the shape of the inputs; the hidden cases,
whose inputs it never sees, are what such a submission cannot answer.)
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import random
import secrets
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat

from workbook.grading.reference import import_reference
from workbook.paths import LAB_CASES, NOTEBOOKS, SOLUTIONS

from ..manifest import LABS

VISIBLE_JSON = Path("provided") / "checking" / "visible.json"
"""Where a package holds its visible cases, relative to the package folder."""
KINDS = ("visible", "hidden")
ID_KEYS = frozenset({"id", "parentId", "firstKeptEntryId", "toolCallId"})
ID_ARGUMENTS = frozenset({"id", "first_kept_entry_id", "leaf_id"})
"""Keys (in entries) and keyword arguments whose string values are ids: what a twin renames."""


class CaseError(ValueError):
    """The case tables are inconsistent with the notebooks or each other; the message names the case."""


def load_cases(folder: Path, kind: str) -> tuple[Any, ...]:
    """The ``CASES`` of ``folder/<lab module>/<kind>.py`` (``kind`` visible or hidden) for every lab, in lab order.

    Each lab folder is loaded as a package of its own, so ``hidden.py`` may import names of its ``visible.py``
    (``from .visible import BUILD``). Raises ``CaseError`` when a case's ``hidden`` flag does not match ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    import_reference()
    found: list[Any] = []
    for lab in LABS:
        path = Path(folder) / lab.module / f"{kind}.py"
        if path.exists():
            found.extend(importlib.import_module(f"{_lab_package(path.parent)}.{kind}").CASES)
    if any(case.hidden != (kind == "hidden") for case in found):
        raise CaseError(f"{folder}: every {kind} case must have hidden={kind == 'hidden'}")
    return tuple(found)


Generator = Callable[[random.Random], tuple[Any, ...]]
"""A lab's ``variants`` function: the generated cases it draws from a seeded ``random.Random``."""


def load_variants(folder: Path) -> dict[int, Generator]:
    """The ``variants`` function of ``folder/<lab module>/variants.py``, by lab number, for every lab that has
    one (loaded as ``load_cases`` loads the case files)."""
    import_reference()
    found: dict[int, Generator] = {}
    for lab in LABS:
        path = Path(folder) / lab.module / "variants.py"
        if path.exists():
            found[lab.number] = importlib.import_module(f"{_lab_package(path.parent)}.variants").variants
    return found


def _lab_package(folder: Path) -> str:
    """The import name of lab folder ``folder`` as a package of its own (one per folder, its files loaded again
    once they change)."""
    resolved = folder.resolve()
    stamp = [str(resolved)] + [f"{path.name}:{path.stat().st_mtime_ns}" for path in sorted(resolved.glob("*.py"))]
    name = f"_workbook_lab_cases_{hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]}"
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [str(resolved)]
        sys.modules[name] = package
    return name


def packaged_cases(package: Path) -> tuple[Any, ...]:
    """The visible cases the ``compaction_lab`` package folder ``package`` holds (its ``visible.json``)."""
    import_reference()
    from compaction_lab.provided.checking.case import Case

    data = json.loads((Path(package) / VISIBLE_JSON).read_text(encoding="utf-8"))
    return tuple(Case.from_json(item) for item in data["cases"])


def grade_points(notebooks: Path = NOTEBOOKS) -> tuple[dict[str, float], dict[str, float]]:
    """``({grade_id: points}, {grade_id: extra-credit points})`` of the autograded cells (grade cells that are
    not answers) of ``notebooks``. An extra-credit cell has nbgrader ``points`` 0 and its points in the cell's
    ``workbook.extra_credit`` metadata: the judge writes them as nbgrader's extra credit, outside the lab's
    points."""
    points, extra = {}, {}
    for path in sorted(Path(notebooks).glob("*.ipynb")):
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
    variants: dict[int, Generator] = dataclasses.field(default_factory=dict)

    def of_lab(self, lab: int) -> tuple[Any, ...]:
        """The cases of ``lab``, visible first."""
        return tuple(case for case in self.cases if case.lab == lab)

    def generated(self, lab: int, seed: int) -> tuple[Any, ...]:
        """The generated variants of ``lab`` for ``seed``: its ``variants`` function (none: ``()``) drawing from
        ``random.Random`` seeded with the seed and the lab, so one seed always draws the same cases. Only cases
        of the lab's known grade cells are kept, all hidden. ``CaseError`` for a generated case of another lab."""
        generator = self.variants.get(lab)
        if generator is None:
            return ()
        made = tuple(generator(random.Random(f"variants {seed} lab {lab}")))
        stray = sorted({case.grade_id for case in made if case.lab != lab or case.grade_id not in self.points})
        if stray:
            raise CaseError(f"lab {lab}'s variants made cases of unknown grade cells: {', '.join(stray)}")
        return tuple(dataclasses.replace(case, hidden=True) for case in made)

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


def case_book(cases: Path = LAB_CASES, package: Path = SOLUTIONS, notebooks: Path = NOTEBOOKS) -> CaseBook:
    """Load and check the cases a package is graded with: the visible cases ``package`` holds (its
    ``visible.json``: what its students have) and the hidden cases of ``cases`` (``<module>/hidden.py``), against
    the grade cells of ``notebooks``."""
    book = CaseBook(
        packaged_cases(package) + load_cases(cases, "hidden"), *grade_points(notebooks), load_variants(cases)
    )
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
    ids.update(value for key, value in case.kwargs.items() if key in ID_ARGUMENTS and isinstance(value, str) and value)
    rename = {value: names[value] for value in sorted(ids)}
    naming = tuple(
        rename.get(item, item) if isinstance(item, str) else tuple(rename.get(word, word) for word in item)
        for item in case.naming
    )
    return dataclasses.replace(
        case,
        args=tuple(_renamed(list(case.args), rename)),
        kwargs=_renamed(dict(case.kwargs), rename),
        naming=naming,
        call=f"{case.call} (with its ids renamed)",
    )


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
    from compaction_lab.provided.checking.wire import observe

    return observe(case.function, list(case.args), dict(case.kwargs))


def visible_file_text(cases: Path = LAB_CASES) -> str:
    """The text of a package's ``visible.json``: the visible cases of ``cases`` (``<module>/visible.py``) and the
    reference's outcome of each, as far as the verdict reads it (a returned value; nothing for a case expecting
    an error, whose verdict reads only the error raised)."""
    visible = load_cases(cases, "visible")
    expected = {}
    for case in visible:
        observed = reference_observation(case)
        expected[case.key] = (
            {}
            if case.raises
            else {
                "returned": observed.get("returned"),
                **({"unserializable": observed["unserializable"]} if "unserializable" in observed else {}),
            }
        )
    # the outcomes' keys sorted (the first difference a check names is the first field in that order); the
    # cases' inputs as written (a lab may depend on their order)
    data = {"cases": [case.to_json() for case in visible], "expected": json.loads(json.dumps(expected, sort_keys=True))}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_visible_file(package: Path, cases: Path = LAB_CASES) -> Path:
    """Write ``visible_file_text(cases)`` into the package folder ``package``; return the file."""
    target = Path(package) / VISIBLE_JSON
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(visible_file_text(cases), encoding="utf-8")
    return target
